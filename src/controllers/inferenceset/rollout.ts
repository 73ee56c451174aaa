// Which children an InferenceSet pass creates and deletes: KAITO's scale up and down, plus what
// KAITO never does (docs/inferenceset.md): template rollouts to existing children, create-before-
// delete, within `maxSurge` / `updateStrategy.rollingUpdate.maxUnavailable`, a bounded wait for a
// new child that cannot be placed, and `nodeCountLimit`. Pure: no client, no clock (`now` is given).
import type { InferenceSet } from '../../api/inferenceset-types.js';
import { ANNOTATION_ENFORCE_NODE_COUNT_LIMIT, ANNOTATION_MAX_SURGE, ANNOTATION_ROLLOUT, ANNOTATION_SURGE_TIMEOUT } from '../../api/labels.js';
import { formatDuration, positiveDurationAnnotation } from '../../runtime/duration.js';
import { selectToDelete } from './children.js';
import { compareText } from '../../runtime/order.js';

/** How long a rollout waits for a new child to become Ready, unless `kaito-ts.io/surge-timeout` says. */
export const DEFAULT_SURGE_TIMEOUT_MS = 10 * 60_000;

export interface RolloutSettings {
  /** False: KAITO's behaviour, template changes never reach existing children. */
  enabled: boolean;
  /** Why not, when not. */
  disabledBy?: string;
  maxSurge: number;
  maxUnavailable: number;
  /** StatefulSet's partition: this many children stay on their template. */
  partition: number;
  surgeTimeoutMs: number;
  /** Values that could not be read (their defaults apply), for the status message. */
  notes: string[];
}

/**
 * An integer or a percentage of `of`, rounded up (StatefulSet's maxUnavailable, Deployment's maxSurge);
 * undefined when unreadable.
 */
export function scaledIntOrPercent(v: unknown, of: number): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const pct = /^(\d+)%$/.exec(v.trim());
  if (pct) return Math.ceil((Number(pct[1]) * of) / 100);
  return /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** The rollout knobs: KAITO's `updateStrategy` (appsv1.StatefulSetUpdateStrategy, schemaless) and our annotations. */
export function rolloutSettings(is: InferenceSet, desired: number): RolloutSettings {
  const notes: string[] = [];
  const annotations = is.metadata.annotations ?? {};
  const strategy = (is.spec.updateStrategy ?? {}) as { type?: unknown; rollingUpdate?: { maxUnavailable?: unknown; partition?: unknown } };
  const rolling = strategy.rollingUpdate ?? {};
  // StatefulSet: default 1, a percentage rounds up, never below 1.
  let maxUnavailable = 1;
  if (rolling.maxUnavailable !== undefined) {
    const v = scaledIntOrPercent(rolling.maxUnavailable, desired);
    if (v === undefined)
      notes.push(`updateStrategy.rollingUpdate.maxUnavailable ${JSON.stringify(rolling.maxUnavailable)} is not an integer or a percentage: 1`);
    else maxUnavailable = Math.max(1, v);
  }
  let partition = 0;
  if (rolling.partition !== undefined) {
    if (typeof rolling.partition === 'number' && Number.isInteger(rolling.partition) && rolling.partition >= 0) partition = rolling.partition;
    else notes.push(`updateStrategy.rollingUpdate.partition ${JSON.stringify(rolling.partition)} is not a non-negative integer: 0`);
  }
  let maxSurge = 1;
  const surge = annotations[ANNOTATION_MAX_SURGE];
  if (surge !== undefined) {
    const v = scaledIntOrPercent(surge, desired);
    if (v === undefined) notes.push(`${ANNOTATION_MAX_SURGE} ${JSON.stringify(surge)} is not an integer or a percentage: 1`);
    else maxSurge = v;
  }
  const timeout = positiveDurationAnnotation(annotations, ANNOTATION_SURGE_TIMEOUT, DEFAULT_SURGE_TIMEOUT_MS);
  if (timeout.note) notes.push(timeout.note);
  const surgeTimeoutMs = timeout.ms;
  const disabledBy =
    annotations[ANNOTATION_ROLLOUT] === 'false' ? `${ANNOTATION_ROLLOUT}: "false"` : strategy.type === 'OnDelete' ? 'updateStrategy.type OnDelete' : undefined;
  return { enabled: !disabledBy, ...(disabledBy ? { disabledBy } : {}), maxSurge, maxUnavailable, partition, surgeTimeoutMs, notes };
}

/** `spec.nodeCountLimit` when set (> 0) and not switched off. */
export function nodeCountLimitOf(is: InferenceSet): number | undefined {
  const limit = is.spec.nodeCountLimit;
  if (is.metadata.annotations?.[ANNOTATION_ENFORCE_NODE_COUNT_LIMIT] === 'false') return undefined;
  return typeof limit === 'number' && limit > 0 ? limit : undefined;
}

export interface ChildView<T> {
  child: T;
  name: string;
  /** Made from the current template. */
  current: boolean;
  ready: boolean;
  /** Being deleted, or a delete of ours is in flight: it counts for nothing. */
  terminating: boolean;
  /** `metadata.creationTimestamp` in ms (undefined: just made). */
  createdAtMs?: number;
  /** `status.targetNodeCount`, once the Workspace controller has set it. */
  targetNodeCount?: number;
}

export interface ChildPlanInput<T> {
  children: ChildView<T>[];
  desired: number;
  rollout: RolloutSettings;
  /** `spec.nodeCountLimit` when enforced. */
  nodeCountLimit?: number;
  /** An earlier create may have succeeded unseen: create nothing. */
  holdCreates: boolean;
  nowMs: number;
}

export interface ChildPlan<T> {
  creates: number;
  deletes: { child: T; why: string }[];
  /** The count the pass works toward: `desired`, or less when the node count limit caps it. */
  target: number;
  limit?: { state: 'capped'; allowed: number; nodesPerChild: number } | { state: 'learning' };
  /** A rollout is under way (children on an older template beyond the partition). */
  rolling?: { current: number; old: number; surge: number; maxUnavailable: number; stalledBy?: string; surgeLimitedByNodes: boolean };
  /** When a new child's wait runs out (no event marks it). */
  recheckAfterMs?: number;
}

const byName = <T>(a: ChildView<T>, b: ChildView<T>) => compareText(a.name, b.name);

/**
 * One pass's creates and deletes.
 * - Not rolling: KAITO's scale up (creates) and down (selectToDelete).
 * - Rolling (children on an older template): new children first, up to `target + surge`; an old one
 *   goes once that keeps at least `target` children and, for a Ready one, at least `target` Ready (with a
 *   surge) or `target - maxUnavailable` Ready (no surge possible). Old not-Ready children go first.
 *   A new child not Ready within the surge timeout stops the rollout: no more new children beyond
 *   `target`, no old child deleted, until it becomes Ready or the template changes.
 * - `nodeCountLimit`: the children never exceed limit / nodes per child; before any child has reported
 *   its node count, one child is made first. The limit caps scale-ups only: it never deletes.
 */
export function planChildren<T>(x: ChildPlanInput<T>): ChildPlan<T> {
  const live = x.children.filter((c) => !c.terminating).sort(byName);
  const { desired, rollout } = x;

  // The node count limit: how many children may exist.
  let maxChildren = Infinity;
  let limit: ChildPlan<T>['limit'];
  if (x.nodeCountLimit !== undefined) {
    const reported = live.map((c) => c.targetNodeCount ?? 0).filter((n) => n > 0);
    if (reported.length) {
      const nodesPerChild = Math.max(...reported);
      maxChildren = Math.floor(x.nodeCountLimit / nodesPerChild);
      if (desired > Math.max(maxChildren, live.length)) limit = { state: 'capped', allowed: maxChildren, nodesPerChild };
    } else {
      maxChildren = Math.max(1, live.length);
      if (desired > maxChildren) limit = { state: 'learning' };
    }
  }
  const target = desired <= live.length ? desired : Math.min(desired, Math.max(maxChildren, live.length));
  const room = (n: number) => Math.max(0, Math.min(n, maxChildren - live.length));
  const result = (r: Omit<ChildPlan<T>, 'target' | 'limit'>): ChildPlan<T> => ({ ...r, target, ...(limit ? { limit } : {}) });

  const old = live.filter((c) => !c.current);
  const current = live.filter((c) => c.current);
  const keepOld = Math.min(rollout.partition, target);
  const candidates = x.children.map((c) => ({ child: c.child, terminating: c.terminating, ready: c.ready, old: !c.current }));

  if (!rollout.enabled || old.length <= keepOld) {
    if (live.length > target)
      return result({ creates: 0, deletes: selectToDelete(candidates, target).map((child) => ({ child, why: `scale down to ${target}` })) });
    return result({ creates: x.holdCreates ? 0 : room(target - live.length), deletes: [] });
  }

  // Rolling. A surge needs room under the node count limit; without one, maxUnavailable pays.
  const surge = Math.max(0, Math.min(rollout.maxSurge, maxChildren - target));
  const surgeLimitedByNodes = surge < rollout.maxSurge;
  const floor = surge > 0 ? target : Math.max(0, target - rollout.maxUnavailable);
  if (live.length > target + surge) {
    // A scale-down in the middle of a rollout: KAITO's choice (old first), then the rollout goes on.
    return result({
      creates: 0,
      deletes: selectToDelete(candidates, target).map((child) => ({ child, why: `scale down to ${target}` })),
      rolling: { current: current.length, old: old.length, surge, maxUnavailable: rollout.maxUnavailable, surgeLimitedByNodes },
    });
  }

  // A new child that has not become Ready within the bound stops the rollout step.
  const waiting = current.filter((c) => !c.ready);
  const overdue = waiting.find((c) => x.nowMs - (c.createdAtMs ?? x.nowMs) >= rollout.surgeTimeoutMs);
  const stalledBy = overdue ? `replica ${overdue.name} of the new template is not Ready after ${formatDuration(rollout.surgeTimeoutMs)}` : undefined;

  const deletes: { child: T; why: string }[] = [];
  if (!stalledBy) {
    let liveLeft = live.length;
    let readyLeft = live.filter((c) => c.ready).length;
    let oldLeft = old.length;
    for (const c of [...old.filter((o) => !o.ready), ...old.filter((o) => o.ready)]) {
      if (oldLeft <= keepOld) break;
      if (liveLeft - 1 < floor) break;
      if (c.ready && readyLeft - 1 < floor) continue;
      deletes.push({ child: c.child, why: c.ready ? 'replaced by a Ready replica of the new template' : 'an older template, not Ready' });
      liveLeft--;
      oldLeft--;
      if (c.ready) readyLeft--;
    }
  }
  const liveAfter = live.length - deletes.length;
  const wantCurrent = target - keepOld;
  const rollCreates = stalledBy ? 0 : Math.min(wantCurrent - current.length, target + surge - liveAfter);
  const creates = x.holdCreates ? 0 : Math.max(0, Math.min(Math.max(rollCreates, target - liveAfter), maxChildren - liveAfter));

  const recheck = stalledBy
    ? undefined
    : waiting.reduce<number | undefined>(
        (m, c) => {
          const left = Math.max(1, (c.createdAtMs ?? x.nowMs) + rollout.surgeTimeoutMs - x.nowMs);
          return m === undefined ? left : Math.min(m, left);
        },
        creates > 0 ? rollout.surgeTimeoutMs : undefined,
      );
  return result({
    creates,
    deletes,
    rolling: {
      current: current.length,
      old: old.length,
      surge,
      maxUnavailable: rollout.maxUnavailable,
      surgeLimitedByNodes,
      ...(stalledBy ? { stalledBy } : {}),
    },
    ...(recheck !== undefined ? { recheckAfterMs: recheck } : {}),
  });
}
