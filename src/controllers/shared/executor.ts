// The executor: carries out a plan's actions in order, with server-side apply under one field
// manager, and records what it wrote. What the server returns goes into the cache at once
// (write-through), so the next pass sees it; the watch event with the same resourceVersion then
// changes nothing. Every failure leaves as ActionFailed, classified in one place (failures.ts).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectCache } from '../../runtime/cache.js';
import { FIELD_MANAGER, JSON_PATCH, MERGE_PATCH, type KubeClient } from '../../runtime/client.js';
import { ignoreGone, ignoreNotFound, isAlreadyExists, isNotFound } from '../../runtime/errors.js';
import { takeTemplateOwnership } from './template-ownership.js';
import type { EventRecorder } from '../../runtime/events.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import { ActionFailed, type Action, type Plan } from './actions.js';

/**
 * What an executor needs. It is generic over the owner (the controller's primary kind): metadata
 * patches, status writes and finalizer removal go to `owner`, whose cache is `caches[ownerCache]`.
 */
export interface ExecutorDeps {
  client: KubeClient;
  /** The controller's caches, keyed by the field names of `Resources` (statefulSets, workspaces, ...). */
  caches: object;
  recorder: EventRecorder;
  /** The primary kind (a literal `Resources.x`: the RBAC scan reads it). */
  owner: ResourceType;
}

/** What a pass lends an execution from its reconcile context. */
export interface PassHooks {
  signal?: AbortSignal;
  release?: () => boolean;
  /** Fires when the pass's deferred writes should wait no longer (a pod of its key turned Ready: `urgentWhen`). */
  urgent?: AbortSignal;
  /** The pass reports a child's status change (its key came from the fast lane): its writes go first in the QPS budget. */
  fast?: boolean;
}

/** What one execution sent: requests that reached the server, by action kind. */
export interface ExecutionRecord {
  writes: number;
  events: number;
}

/** Writes that start (or restart) a model load: the workload and the nodes it waits for. */
const MODEL_LOAD_TYPES = new Set([Resources.statefulSets.plural, Resources.jobs.plural, Resources.nodeClaims.plural, Resources.nodePools.plural]);
export function startsModelLoad(a: Action<object>): boolean {
  return (a.kind === 'apply' || a.kind === 'create') && MODEL_LOAD_TYPES.has(a.type.plural);
}

/** The run of creates from `start` of one type whose names the server generates (`generateName`, no name). */
function generatedCreates(actions: readonly Action<object>[], start: number): Action<object>[] {
  const type = actions[start]?.kind === 'create' ? actions[start].type : undefined;
  const generated = (a: Action<object> | undefined): boolean =>
    a?.kind === 'create' && a.type === type && !a.object.metadata?.name && !!a.object.metadata?.generateName;
  let end = start;
  while (generated(actions[end])) end++;
  return actions.slice(start, end);
}

export class PlanExecutor<O extends KubernetesObject = KubernetesObject> {
  private readonly cacheOf: Partial<Record<string, ObjectCache<KubernetesObject>>>;
  private readonly owner: ResourceType;
  /** Creates sent and not yet answered, by object: a second pass waits for the answer instead of a 409. */
  private readonly creating = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ExecutorDeps) {
    // Resources and the caches share their keys (statefulSets, nodeClaims, ...).
    const c = deps.caches as Record<string, ObjectCache<KubernetesObject> | undefined>;
    this.cacheOf = Object.fromEntries(Object.entries(Resources).map(([field, t]) => [t.plural, c[field]]));
    this.owner = deps.owner;
  }

  /**
   * Runs the actions in order. `signal` (the reconcile context's) aborts any call in flight on
   * shutdown; `release` (the context's too) frees the worker once only deferred writes are left.
   */
  async execute(ws: O, plan: Plan<object>, run: PassHooks = {}): Promise<ExecutionRecord> {
    const { signal, release, urgent, fast } = run;
    const record: ExecutionRecord = { writes: 0, events: 0 };
    const bound = signal ? { client: this.deps.client.withSignal(signal), recorder: this.deps.recorder.withSignal(signal) } : this.deps;
    const io = fast ? { ...bound, client: bound.client.withPriority('high') } : bound;
    // What follows a pass's last model-load write (its Services, status) yields the QPS budget, so on
    // a burst of new workspaces every model load starts before anyone's Services (docs/runtime.md);
    // the worker moves on to the next workspace's model load meanwhile.
    const last = plan.actions.findLastIndex(startsModelLoad);
    const deferred = last >= 0 && last < plan.actions.length - 1 ? { ...io, client: io.client.deferred(urgent) } : io;
    let current = ws;
    for (let i = 0; i < plan.actions.length;) {
      const batch = generatedCreates(plan.actions, i);
      const client = i > last ? deferred : io;
      if (client !== io && i === last + 1) release?.();
      if (batch.length > 1) {
        // Objects named by the server (an InferenceSet's children) cannot collide: sent together, within the QPS limit.
        const results = await Promise.allSettled(batch.map((a) => this.run(client, current, a, record)));
        const failed = results.findIndex((r) => r.status === 'rejected');
        if (failed >= 0) throw new ActionFailed(batch[failed]!, (results[failed] as PromiseRejectedResult).reason);
        i += batch.length;
        continue;
      }
      const action = plan.actions[i]!;
      try {
        current = await this.run(client, current, action, record);
      } catch (err) {
        throw new ActionFailed(action, err);
      }
      i++;
    }
    return record;
  }

  private async run(io: Pick<ExecutorDeps, 'client' | 'recorder'>, ws: O, a: Action<object>, record: ExecutionRecord): Promise<O> {
    const { client, recorder } = io;
    const owner = this.owner;
    const ref = { namespace: ws.metadata?.namespace, name: ws.metadata?.name ?? '' };
    switch (a.kind) {
      case 'event':
        record.events++;
        await recorder.event(a.regarding ?? ws, a.note.type, a.note.reason, a.note.message);
        return ws;
      case 'patchMetadata': {
        // resourceVersion makes the merge patch conditional: a concurrent edit yields 409 and a retry.
        const metadata = {
          resourceVersion: a.resourceVersion,
          ...(a.finalizers ? { finalizers: a.finalizers } : {}),
          ...(a.annotations ? { annotations: a.annotations } : {}),
        };
        record.writes++;
        const patched = await client.patch<O>(owner, ref, { metadata }, MERGE_PATCH);
        this.written(owner, patched);
        return structuredClone(patched); // the pass goes on with its own copy (the cache freezes what it stores)
      }
      case 'apply':
        record.writes++;
        this.written(a.type, await client.apply(a.type, a.object));
        return ws;
      case 'create': {
        // Another worker's pass may have created it since this plan's snapshot (a namespace's shared
        // ConfigMap copy in a burst): the write-through cache says so without a request, and a create
        // still in flight is waited for rather than sent twice.
        const name = a.object.metadata?.name;
        const key = `${a.type.plural}/${a.object.metadata?.namespace ?? ''}/${name ?? ''}`;
        const pending = name ? this.creating.get(key) : undefined;
        if (pending) await pending.catch(() => undefined);
        if (name && this.cacheOf[a.type.plural]?.get(a.object.metadata?.namespace, name)) return ws;
        record.writes++;
        const sent = client.create(a.type, a.object);
        if (name) this.creating.set(key, sent);
        try {
          this.written(a.type, await sent);
        } catch (err) {
          if (isAlreadyExists(err)) return ws;
          if (a.failed) await recorder.event(ws, a.failed.type, a.failed.reason, `${a.failed.message}: ${(err as Error).message}`);
          throw err;
        } finally {
          if (this.creating.get(key) === sent) this.creating.delete(key);
        }
        if (a.created) await recorder.event(ws, a.created.type, a.created.reason, a.created.message);
        return ws;
      }
      case 'delete':
        if (!a.uid) throw new Error(`refusing to delete ${a.type.kind} ${a.ref.namespace}/${a.ref.name} without its UID`);
        record.writes++;
        await client.delete(a.type, a.ref, { uid: a.uid, ...(a.propagationPolicy ? { propagationPolicy: a.propagationPolicy } : {}) }).catch(ignoreGone);
        return ws;
      case 'takeFieldOwnership': {
        const live = await client.get(a.type, a.ref.namespace, a.ref.name).catch(ignoreNotFound);
        const fields = live && takeTemplateOwnership(live.metadata?.managedFields ?? [], a.container, FIELD_MANAGER, live.apiVersion ?? '');
        if (!live || !fields) return ws;
        // Setting the resourceVersion read makes the patch conditional: a write since then is a 409 and a retry.
        const patch = [
          { op: 'replace', path: '/metadata/resourceVersion', value: live.metadata?.resourceVersion },
          { op: 'replace', path: '/metadata/managedFields', value: fields },
        ];
        record.writes++;
        const patched = await client.patch(a.type, a.ref, patch, JSON_PATCH).catch(ignoreNotFound);
        if (patched) this.written(a.type, patched);
        return ws;
      }
      case 'patchLabels': {
        record.writes++;
        const patched = await client
          .patch(a.type, a.ref, { metadata: { resourceVersion: a.resourceVersion, labels: a.labels } }, MERGE_PATCH)
          .catch(ignoreGone);
        if (patched) this.written(a.type, patched);
        return ws;
      }
      case 'labelNode': {
        record.writes++;
        const patched = await client
          .patch(Resources.nodes, { name: a.name }, { metadata: { resourceVersion: a.resourceVersion, labels: a.labels } }, MERGE_PATCH)
          .catch(ignoreGone);
        if (patched) this.written(Resources.nodes, patched);
        return ws;
      }
      case 'status': {
        // Compared with the freshest cached copy: a write-through of this pass, or a newer event.
        const fresh = (this.cacheOf[owner.plural]?.get(ws.metadata?.namespace, ws.metadata?.name ?? '') ?? ws) as O;
        const wrote = await writeStatusIfChanged(client, owner, fresh, a.status as Record<string, unknown>, {
          mode: 'merge',
          onWritten: (obj) => this.written(owner, obj),
        }).catch(ignoreGone);
        if (wrote) record.writes++;
        return { ...ws, status: a.status };
      }
      case 'removeFinalizer':
        record.writes++;
        await client
          .patch(
            owner,
            ref,
            [
              { op: 'test', path: `/metadata/finalizers/${a.index}`, value: a.finalizer },
              { op: 'remove', path: `/metadata/finalizers/${a.index}` },
            ],
            JSON_PATCH,
          )
          .catch((err: unknown) => {
            if (!isNotFound(err)) throw err; // a failed test (422) or conflict retries with backoff against fresh cache
          });
        return ws;
    }
  }

  /** Write-through: what the server returned is in the cache for the rest of this pass and the next. */
  private written(type: ResourceType, obj: KubernetesObject): void {
    this.cacheOf[type.plural]?.upsert(obj);
  }
}
