// The executor: carries out a plan's actions in order, with server-side apply under one field
// manager, and records what it wrote. What the server returns goes into the cache at once
// (write-through), so the next pass sees it; the watch event with the same resourceVersion then
// changes nothing. Every failure leaves as ActionFailed, classified in one place (failures.ts).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectCache } from '../../runtime/cache.js';
import { JSON_PATCH, MERGE_PATCH, type KubeClient } from '../../runtime/client.js';
import { ignoreGone, isAlreadyExists, isNotFound } from '../../runtime/errors.js';
import type { EventRecorder } from '../../runtime/events.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import type { Action, Plan } from './actions.js';
import type { WorkspaceObject, WorkspaceStores } from './context.js';
import { ActionFailed } from './failures.js';

export interface ExecutorDeps {
  client: KubeClient;
  /** Writable: what the server returns is written through (the only writer besides the reflectors). */
  caches: WorkspaceStores;
  recorder: EventRecorder;
}

/** What one execution sent: requests that reached the server, by action kind. */
export interface ExecutionRecord {
  writes: number;
  events: number;
}

export class PlanExecutor {
  private readonly cacheOf: Partial<Record<string, ObjectCache<KubernetesObject>>>;

  constructor(private readonly deps: ExecutorDeps) {
    // Resources and WorkspaceStores share their keys (statefulSets, nodeClaims, ...).
    const c = deps.caches as unknown as Record<string, ObjectCache<KubernetesObject> | undefined>;
    this.cacheOf = Object.fromEntries(Object.entries(Resources).map(([field, t]) => [t.plural, c[field]]));
  }

  /** Runs the actions in order; `signal` (the reconcile context's) aborts any call in flight on shutdown. */
  async execute(ws: WorkspaceObject, plan: Plan, signal?: AbortSignal): Promise<ExecutionRecord> {
    const record: ExecutionRecord = { writes: 0, events: 0 };
    const io = signal ? { client: this.deps.client.withSignal(signal), recorder: this.deps.recorder.withSignal(signal) } : this.deps;
    let current = ws;
    for (const action of plan.actions) {
      try {
        current = await this.run(io, current, action, record);
      } catch (err) {
        throw new ActionFailed(action, err);
      }
    }
    return record;
  }

  private async run(io: Pick<ExecutorDeps, 'client' | 'recorder'>, ws: WorkspaceObject, a: Action, record: ExecutionRecord): Promise<WorkspaceObject> {
    const { client, recorder } = io;
    const { caches } = this.deps;
    const ref = { namespace: ws.metadata.namespace, name: ws.metadata.name ?? '' };
    switch (a.kind) {
      case 'event':
        record.events++;
        await recorder.event(ws, a.note.type, a.note.reason, a.note.message);
        return ws;
      case 'patchMetadata': {
        // resourceVersion makes the merge patch conditional: a concurrent edit yields 409 and a retry.
        const metadata = { resourceVersion: a.resourceVersion, ...(a.finalizers ? { finalizers: a.finalizers } : {}), ...(a.annotations ? { annotations: a.annotations } : {}) };
        record.writes++;
        return this.written(Resources.workspaces, await client.patch<WorkspaceObject>(Resources.workspaces, ref, { metadata }, MERGE_PATCH));
      }
      case 'apply':
        record.writes++;
        this.written(a.type, await client.apply(a.type, a.object));
        return ws;
      case 'create':
        record.writes++;
        try {
          this.written(a.type, await client.create(a.type, a.object));
        } catch (err) {
          if (isAlreadyExists(err)) return ws;
          if (a.failed) await recorder.event(ws, a.failed.type, a.failed.reason, `${a.failed.message}: ${(err as Error).message}`);
          throw err;
        }
        if (a.created) await recorder.event(ws, a.created.type, a.created.reason, a.created.message);
        return ws;
      case 'delete':
        if (!a.uid) throw new Error(`refusing to delete ${a.type.kind} ${a.ref.namespace}/${a.ref.name} without its UID`);
        record.writes++;
        await client.delete(a.type, a.ref, { uid: a.uid, ...(a.propagationPolicy ? { propagationPolicy: a.propagationPolicy } : {}) }).catch(ignoreGone);
        return ws;
      case 'labelNode': {
        record.writes++;
        const patched = await client.patch(Resources.nodes, { name: a.name }, { metadata: { resourceVersion: a.resourceVersion, labels: a.labels } }, MERGE_PATCH).catch(ignoreGone);
        if (patched) this.written(Resources.nodes, patched);
        return ws;
      }
      case 'status': {
        // Compared with the freshest cached copy: a write-through of this pass, or a newer event.
        const fresh = caches.workspaces.get(ws.metadata.namespace, ws.metadata.name ?? '') ?? ws;
        const wrote = await writeStatusIfChanged(client, Resources.workspaces, fresh, a.status as Record<string, unknown>, {
          mode: 'merge',
          onWritten: (obj) => this.written(Resources.workspaces, obj),
        }).catch(ignoreGone);
        if (wrote) record.writes++;
        return { ...ws, status: a.status };
      }
      case 'removeFinalizer':
        record.writes++;
        await client
          .patch(Resources.workspaces, ref, [
            { op: 'test', path: `/metadata/finalizers/${a.index}`, value: a.finalizer },
            { op: 'remove', path: `/metadata/finalizers/${a.index}` },
          ], JSON_PATCH)
          .catch((err: unknown) => {
            if (!isNotFound(err)) throw err; // a failed test (422) or conflict retries with backoff against fresh cache
          });
        return ws;
    }
  }

  /** Write-through; the pass goes on with its own copy (the cache freezes what it stores). */
  private written<T extends KubernetesObject>(type: ResourceType, obj: T): T {
    this.cacheOf[type.plural]?.upsert(obj);
    return structuredClone(obj);
  }
}
