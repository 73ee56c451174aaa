// What a plan asks the executor to do, in order. Every write the Workspace and InferenceSet
// controllers make is one of these; `kaito-ts diff` and `render --explain` print the same list.
// "The owner" is the controller's primary object (a Workspace, an InferenceSet).
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WorkspaceStatus } from '../../api/types.js';
import { TerminalError, type ErrorVerdict } from '../../runtime/controller.js';
import { isRefused, toKubeError } from '../../runtime/errors.js';
import type { ResourceType } from '../../runtime/resources.js';

export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ObjectRef {
  namespace?: string;
  name: string;
}

/** `S`: the owner's status type. */
export type Action<S extends object = WorkspaceStatus> =
  /** Our finalizer and annotation keys in one merge patch, conditional on the resourceVersion seen. */
  | { kind: 'patchMetadata'; resourceVersion?: string; finalizers?: string[]; annotations?: Record<string, string> }
  /** Server-side apply of a child we own. `refusedReason` names the failure when the server refuses it. */
  | { kind: 'apply'; type: ResourceType; object: KubernetesObject; why: string; refusedReason?: string }
  /** Create when missing; an object that appeared meanwhile is left as it is. */
  | { kind: 'create'; type: ResourceType; object: KubernetesObject; why: string; created?: EventNote; failed?: EventNote }
  /** Delete exactly the object seen (UID precondition); already gone is done. */
  | { kind: 'delete'; type: ResourceType; ref: ObjectRef; uid: string; why: string; propagationPolicy?: 'Foreground' }
  /**
   * The template fields of the managers that wrote the container `container` move to our Apply entry
   * (one JSON patch of managedFields, guarded by the resourceVersion read), so the apply that follows
   * removes what it does not set. Nothing is sent when nobody else wrote it; already gone is done.
   */
  | { kind: 'takeFieldOwnership'; type: ResourceType; ref: ObjectRef; container: string; why: string }
  /** Labels added to a child (a merge patch), conditional on its resourceVersion; already gone is done. */
  | { kind: 'patchLabels'; type: ResourceType; ref: ObjectRef; resourceVersion?: string; labels: Record<string, string> }
  /** Labels on a node, conditional on its resourceVersion. */
  | { kind: 'labelNode'; name: string; resourceVersion?: string; labels: Record<string, string> }
  /** An event about the owner, or about `regarding` (a cluster-scoped object the owner cannot stand for: an orphaned NodeClaim). */
  | { kind: 'event'; note: EventNote; regarding?: KubernetesObject }
  /** The owner's status, written only if it differs from the cached one. */
  | { kind: 'status'; status: S }
  /** Our finalizer's entry, removed with a JSON-patch test so a concurrent finalizer edit is never lost. */
  | { kind: 'removeFinalizer'; index: number; finalizer: string };

export interface Plan<S extends object = WorkspaceStatus> {
  actions: Action<S>[];
  /** The children the plan wants to exist, whether or not it writes them this pass (diff, render). */
  desired?: KubernetesObject[];
  /** Look again after this long (a timeout that no event marks). */
  requeueAfterMs?: number;
  /** The pass stops on a failure only the user (or another watched input) can cure: not retried. */
  failure?: { reason: string; message: string };
}

/** One line per action, for `render --explain`, `diff` and logs (`owner`: what the metadata and status belong to). */
export function describeAction(a: Action<object>, owner = 'workspace'): string {
  const ref = (type: ResourceType, o: ObjectRef) => `${type.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  const meta = (o: KubernetesObject) => ({ namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' });
  switch (a.kind) {
    case 'patchMetadata':
      return `patch ${owner} metadata:${a.finalizers ? ' finalizer' : ''}${a.annotations ? ` annotations ${Object.keys(a.annotations).join(', ')}` : ''}`;
    case 'apply':
      return `apply ${ref(a.type, meta(a.object))}: ${a.why}`;
    case 'create':
      return `create ${ref(a.type, meta(a.object))}: ${a.why}`;
    case 'delete':
      return `delete ${ref(a.type, a.ref)}: ${a.why}`;
    case 'takeFieldOwnership':
      return `take ownership of ${ref(a.type, a.ref)}'s pod template: ${a.why}`;
    case 'patchLabels':
      return `label ${ref(a.type, a.ref)}: ${Object.entries(a.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`;
    case 'labelNode':
      return `label Node ${a.name}: ${Object.entries(a.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`;
    case 'event':
      return `event ${a.note.type} ${a.note.reason}: ${a.note.message}`;
    case 'status':
      return `write ${owner} status`;
    case 'removeFinalizer':
      return `remove finalizer ${a.finalizer}`;
  }
}

/** An action of a plan that failed; the executor throws it with the server's error as cause. */
export class ActionFailed extends Error {
  override readonly name = 'ActionFailed';
  constructor(
    readonly action: Action<object>,
    override readonly cause: unknown,
  ) {
    super(`${describeAction(action)}: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** The server's error behind a failed plan action, or the error itself. */
export function causeOf(err: unknown): unknown {
  return err instanceof ActionFailed ? err.cause : err;
}

/**
 * The error policy of every plan/execute controller: terminal for what only an event can cure (bad
 * input, an object the API server refuses: its body comes from the spec), otherwise the queue's
 * backoff, never sooner than a throttling server's Retry-After.
 */
export function planErrorPolicy(err: unknown): ErrorVerdict {
  const cause = causeOf(err);
  if (cause instanceof TerminalError || isRefused(cause)) return { terminal: true };
  return { terminal: false, notBeforeMs: toKubeError(cause).retryAfterMs ?? 0 };
}
