// Status-condition bookkeeping with the semantics of apimachinery's meta.SetStatusCondition:
// lastTransitionTime moves only when `status` changes; reason, message and observedGeneration
// always follow the latest write. Pure: returns a new list, never mutates its input.
import type { WorkspaceCondition } from './types.js';
import { isoSeconds } from '../runtime/timestamps.js';

export type ConditionStatus = WorkspaceCondition['status'];

/** What a caller wants a condition to say; the time is supplied by setCondition. */
export interface ConditionUpdate {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  observedGeneration?: number;
}

/** metav1.Time serialises with second precision (RFC 3339, no fraction). */
export function formatConditionTime(now: Date): string {
  return isoSeconds(now);
}

export interface SetConditionResult {
  conditions: WorkspaceCondition[];
  /** False when the write would leave the list identical (lets callers skip a status PUT). */
  changed: boolean;
}

export function setCondition(conditions: readonly WorkspaceCondition[] | undefined, next: ConditionUpdate, now: Date): SetConditionResult {
  const list = conditions ?? [];
  const index = list.findIndex((c) => c.type === next.type);
  const existing = index >= 0 ? list[index] : undefined;
  const updated: WorkspaceCondition = {
    type: next.type,
    status: next.status,
    reason: next.reason,
    message: next.message,
    lastTransitionTime: existing && existing.status === next.status ? existing.lastTransitionTime : formatConditionTime(now),
    // Like meta.SetStatusCondition, observedGeneration is always overwritten.
    ...(next.observedGeneration !== undefined ? { observedGeneration: next.observedGeneration } : {}),
  };
  if (!existing) return { conditions: [...list, updated], changed: true };
  const changed =
    existing.status !== updated.status ||
    existing.reason !== updated.reason ||
    existing.message !== updated.message ||
    existing.observedGeneration !== updated.observedGeneration;
  if (!changed) return { conditions: [...list], changed: false };
  const copy = [...list];
  copy[index] = updated;
  return { conditions: copy, changed: true };
}

export function findCondition(conditions: readonly WorkspaceCondition[] | undefined, type: string): WorkspaceCondition | undefined {
  return conditions?.find((c) => c.type === type);
}
