// What a tuning Job says, and the workspace status that follows from it. Pure: the caller passes the
// Job and its pods from the caches, and `now`. Success and failure come from the Job's own Complete /
// Failed conditions (KAITO reads `failed > 0` first, so one failed attempt is final even when a retry
// succeeds: W1), and a failure names the pod, the container, its exit code and the last line of its
// termination message.
import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { setCondition } from '../../api/workspace-conditions.js';
import { ConditionMessage, ConditionReason, ConditionType } from '../../api/labels.js';
import type { Workspace, WorkspaceStatus } from '../../api/types.js';
import { computeStatus, type StatusInput } from './workspace-status.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { stableSchedulerMessage } from './scheduler-message.js';

export type JobPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

export interface JobObservation {
  phase: JobPhase;
  active: number;
  ready: number;
  message: string;
}

/** kaito-ts reasons beyond KAITO's (docs/controller.md). */
export const TuningReason = {
  JobPending: 'WorkspaceTuningJobStatusPending',
  WaitingForNodes: 'WaitingForNodes',
  JobReplaced: 'TuningJobReplaced',
  SecretNotFound: 'SecretNotFound',
} as const;

export const TuningState = { Running: 'Running', Succeeded: 'Succeeded', Failed: 'Failed' } as const;

const isTrue = (job: DeepReadonly<V1Job>, type: string) => job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/** Pods the Job controller made for this Job (by owner uid). */
export function podsOfJob(job: DeepReadonly<V1Job>, pods: readonly DeepReadonly<V1Pod>[]): DeepReadonly<V1Pod>[] {
  const uid = job.metadata?.uid;
  return pods.filter((p) => !!uid && p.metadata?.ownerReferences?.some((o) => o.kind === 'Job' && o.uid === uid));
}

function lastLine(text: string | undefined): string {
  const lines = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '';
}

/** `pod P: container C exited with code N (Reason): last line`, for the first failed container of a failed pod. */
export function podFailure(pods: readonly DeepReadonly<V1Pod>[]): string | undefined {
  for (const pod of pods.filter((p) => p.status?.phase === 'Failed')) {
    const statuses: DeepReadonly<V1ContainerStatus>[] = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    const failed = statuses.find((s) => (s.state?.terminated?.exitCode ?? 0) !== 0);
    const name = pod.metadata?.name ?? '';
    if (failed) {
      const t = failed.state!.terminated!;
      const tail = lastLine(t.message);
      return `pod ${name}: container ${failed.name} exited with code ${t.exitCode}${t.reason ? ` (${t.reason})` : ''}${tail ? `: ${tail}` : ''}`;
    }
    const why = [pod.status?.reason, lastLine(pod.status?.message)].filter(Boolean).join(': ');
    return `pod ${name} failed${why ? `: ${why}` : ''}`;
  }
  return undefined;
}

/** Why a Job's pod has not started: its scheduling condition or its containers' waiting reasons. */
function podWaiting(pods: readonly DeepReadonly<V1Pod>[]): string {
  const pod = pods.find((p) => p.status?.phase === 'Pending');
  if (!pod) return 'no pod yet';
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled)
    return `pod ${pod.metadata?.name} is not scheduled${unscheduled.reason ? ` (${unscheduled.reason})` : ''}${unscheduled.message ? `: ${stableSchedulerMessage(unscheduled.message)}` : ''}`;
  const waiting = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find((s) => s.state?.waiting);
  return waiting
    ? `pod ${pod.metadata?.name}: container ${waiting.name} is waiting (${waiting.state?.waiting?.reason ?? 'unknown'})`
    : `pod ${pod.metadata?.name} is pending`;
}

export function observeJob(job: DeepReadonly<V1Job>, pods: readonly DeepReadonly<V1Pod>[]): JobObservation {
  const own = podsOfJob(job, pods);
  const active = job.status?.active ?? 0;
  const ready = job.status?.ready ?? 0;
  const name = `${job.metadata?.namespace}/${job.metadata?.name}`;
  if (isTrue(job, 'Complete')) return { phase: 'Succeeded', active, ready, message: `job ${name} completed` };
  if (isTrue(job, 'Failed')) {
    const c = job.status?.conditions?.find((x) => x.type === 'Failed');
    const why = [c?.reason, c?.message].filter(Boolean).join(': ');
    const detail = podFailure(own);
    return { phase: 'Failed', active, ready, message: `job ${name} failed${why ? ` (${why})` : ''}${detail ? `; ${detail}` : ''}` };
  }
  const running = own.some((p) => p.status?.phase === 'Running' || p.status?.phase === 'Succeeded');
  if (ready > 0 || running) return { phase: 'Running', active, ready, message: ConditionMessage.tuningJobStarted };
  return { phase: 'Pending', active, ready, message: `job ${name} created; ${podWaiting(own)}` };
}

/** What this reconcile learned about the tuning workspace. */
export type TuningOutcome =
  | { kind: 'job'; job: JobObservation }
  /** No Job (yet): invalid spec or a build problem. */
  | { kind: 'invalid'; reason: string; message: string }
  /** Waiting before creating the Job: nodes, or the previous revision's Job going away. */
  | { kind: 'waiting'; reason: string; message: string; /** also a Warning event (bad input the user must fix) */ warn?: boolean };

export function tuningStatus(
  ws: Workspace,
  nodes: Pick<StatusInput, 'nodes' | 'nodeClaims'>,
  outcome: TuningOutcome,
  now: Date,
): { status: WorkspaceStatus; changed: boolean } {
  const base = computeStatus(ws, { targetNodeCount: 1, ...nodes }, now);
  let conditions = base.status.conditions ?? [];
  let changed = base.changed;
  const set = (type: string, status: 'True' | 'False', reason: string, message: string) => {
    const r = setCondition(conditions, { type, status, reason, message, observedGeneration: ws.metadata.generation }, now);
    conditions = r.conditions;
    changed ||= r.changed;
  };
  const pending = (active: number, ready: number) =>
    set(ConditionType.WorkspaceSucceeded, 'False', ConditionReason.WorkspacePending, ConditionMessage.tuningPending(active, ready));
  let state: string = TuningState.Running;
  const failed = (message: string) => {
    set(ConditionType.JobStarted, 'False', ConditionReason.TuningJobStatusFailed, message);
    set(ConditionType.WorkspaceSucceeded, 'False', ConditionReason.WorkspaceFailed, message);
    state = TuningState.Failed;
  };
  if (outcome.kind === 'invalid') failed(outcome.message);
  else if (outcome.kind === 'waiting') {
    set(ConditionType.JobStarted, 'False', outcome.reason, outcome.message);
    pending(0, 0);
  } else {
    const j = outcome.job;
    if (j.phase === 'Failed') failed(j.message);
    else if (j.phase === 'Pending') {
      set(ConditionType.JobStarted, 'False', TuningReason.JobPending, j.message);
      pending(j.active, j.ready);
    } else {
      // As in KAITO, JobStarted stays True once the Job has run, success included.
      set(ConditionType.JobStarted, 'True', ConditionReason.TuningJobStatusStarted, ConditionMessage.tuningJobStarted);
      if (j.phase === 'Succeeded') {
        set(ConditionType.WorkspaceSucceeded, 'True', ConditionReason.WorkspaceSucceeded, ConditionMessage.workspaceSucceeded);
        state = TuningState.Succeeded;
      } else pending(j.active, j.ready);
    }
  }
  if (base.status.state !== state) changed = true;
  return { status: { ...base.status, conditions, state }, changed };
}
