// Expectations (KAITO #2177, controller-runtime's ControllerExpectations), keyed by InferenceSet.
// A create is written through to the cache from the server's answer, so the next pass counts it at
// once; what a cache read cannot know is (1) a delete whose watch event has not arrived yet, and
// (2) a create whose answer never came (timeout, reset, shutdown): the child may exist. Deletes are
// tracked by UID until the cache shows the child gone or terminating; after an unanswered create,
// no further child is created until a new child is observed or the TTL passes.
import type { ChildWorkspace } from './children.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export const EXPECTATIONS_TTL_MS = 60_000;

interface Pending {
  deletes: Map<string, number>;
  uncertainCreateAt?: number;
}

export interface ExpectationView {
  /** UIDs of children deleted by us and not yet seen terminating or gone. */
  pendingDeletes: ReadonlySet<string>;
  /** No create this pass: an earlier one may have succeeded unseen. */
  holdCreates: boolean;
  /** When the oldest expectation expires (the pass looks again then). */
  recheckAfterMs?: number;
}

export class Expectations {
  private readonly byKey = new Map<string, Pending>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = EXPECTATIONS_TTL_MS,
  ) {}

  private entry(key: string): Pending {
    let p = this.byKey.get(key);
    if (!p) this.byKey.set(key, (p = { deletes: new Map() }));
    return p;
  }

  expectDeletes(key: string, uids: string[]): void {
    const p = this.entry(key);
    for (const uid of uids) p.deletes.set(uid, this.now());
  }

  /** A delete that failed before reaching the server (or was refused): nothing to wait for. */
  deleteFailed(key: string, uid: string): void {
    this.byKey.get(key)?.deletes.delete(uid);
  }

  uncertainCreate(key: string): void {
    this.entry(key).uncertainCreateAt = this.now();
  }

  /** A child of `key` appeared in the cache (a watch add event). */
  createObserved(key: string): void {
    const p = this.byKey.get(key);
    if (p) p.uncertainCreateAt = undefined;
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  /** What a pass must assume, after dropping what the cache now shows and what expired. */
  view(key: string, children: readonly DeepReadonly<ChildWorkspace>[]): ExpectationView {
    const p = this.byKey.get(key);
    if (!p) return { pendingDeletes: new Set(), holdCreates: false };
    const now = this.now();
    const live = new Set(children.filter((c) => !c.metadata?.deletionTimestamp).map((c) => c.metadata?.uid));
    for (const [uid, at] of p.deletes) if (!live.has(uid) || now - at >= this.ttlMs) p.deletes.delete(uid);
    if (p.uncertainCreateAt !== undefined && now - p.uncertainCreateAt >= this.ttlMs) p.uncertainCreateAt = undefined;
    const times = [...p.deletes.values(), ...(p.uncertainCreateAt !== undefined ? [p.uncertainCreateAt] : [])];
    if (!times.length) {
      this.byKey.delete(key);
      return { pendingDeletes: new Set(), holdCreates: false };
    }
    return {
      pendingDeletes: new Set(p.deletes.keys()),
      holdCreates: p.uncertainCreateAt !== undefined,
      recheckAfterMs: Math.max(1, Math.min(...times) + this.ttlMs - now),
    };
  }
}
