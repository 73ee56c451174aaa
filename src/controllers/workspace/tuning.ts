// The reconcile path of a tuning workspace: validate, record the revision, get nodes (node
// auto-provisioning), create the Job once per revision (server-side apply), and report what the
// Job says. Nothing here waits: Job and pod events bring the workspace back (W2). A Job that exists
// for the current revision is only observed, never re-created, so an operator restart never reruns
// training; a new revision deletes the old Job first and creates the new one once it is gone (W10).
import type { KubernetesObject, V1ConfigMap, V1ControllerRevision, V1Job } from '@kubernetes/client-node';
import { ANNOTATION_HASH, ANNOTATION_REVISION, LABEL_WORKSPACE_NAME } from '../../api/labels.js';
import type { ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { errorsOf, formatIssues, validateWorkspace } from '../../api/validation.js';
import { resolveFromFacts } from '../../builders/facts.js';
import { buildControllerRevision } from '../../builders/revision.js';
import { buildTuning } from '../../builders/tuning/build.js';
import { tuningConfigLookup } from '../../builders/tuning/config.js';
import { controllerOf } from '../../runtime/cache.js';
import type { Result } from '../../runtime/controller.js';
import { needsApply } from '../../runtime/drift.js';
import { ignoreGone, isInvalid, isNotFound, toKubeError } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { gatherFacts } from './gather-facts.js';
import type { ProvisioningPlan } from './provisioning-plan.js';
import type { StatusInput } from './workspace-status.js';
import { observeJob, TuningReason, tuningStatus, type TuningOutcome } from './tuning-status.js';

/** The reconciler's own steps the tuning path reuses (finalizer/annotations, revisions, nodes). */
export interface TuningSteps {
  ensureMetadata(ws: WorkspaceObject, annotations: Record<string, string>): Promise<WorkspaceObject>;
  syncRevision(ws: WorkspaceObject, revision: V1ControllerRevision, hash: string): Promise<void>;
  createConfigMapIfMissing(cm: V1ConfigMap): Promise<void>;
  provision(ws: WorkspaceObject, target: number, resolved: ResolvedWorkspace): Promise<{ ws: WorkspaceObject; plan: ProvisioningPlan } | undefined>;
  nodeFacts(ws: WorkspaceObject, target: number, plan?: ProvisioningPlan): Pick<StatusInput, 'nodes' | 'nodeClaims'>;
}

export async function reconcileTuning(cached: WorkspaceObject, deps: WorkspaceDeps, steps: TuningSteps): Promise<Result> {
  let ws = cached;
  const { caches, client, recorder } = deps;
  const ns = ws.metadata.namespace ?? 'default';
  const name = ws.metadata.name ?? '';
  const report = (outcome: TuningOutcome, plan?: ProvisioningPlan) => writeTuningStatus(ws, deps, steps.nodeFacts(ws, 1, plan), outcome);

  const job = caches.jobs.get(ns, name);
  if (job && controllerOf(job)?.uid !== ws.metadata.uid) {
    return report({ kind: 'invalid', reason: 'ObjectNotOwned', message: `Job ${ns}/${name} exists and is not controlled by this workspace; kaito-ts leaves it untouched` });
  }
  const facts = gatherFacts(ws, deps, undefined);
  // Resolved once (preset, runtime, GPU facts): validation and buildTuning read the same value.
  const resolved = resolveFromFacts(ws, facts);
  const built = buildTuning(ws, facts, resolved);
  const current = job?.metadata?.annotations?.[ANNOTATION_REVISION] === String(built.revision) ? job : undefined;
  // The ConfigMap is checked before a Job is made from it; later edits of it change nothing (as in KAITO).
  const issues = errorsOf(
    validateWorkspace(ws, {
      resolved,
      operation: 'create',
      ...(current ? {} : { tuningConfig: tuningConfigLookup(ws, facts) }),
    }),
  );
  if (issues.length) return report({ kind: 'invalid', reason: 'InvalidSpec', message: formatIssues(issues) });

  ws = await steps.ensureMetadata(ws, { [ANNOTATION_HASH]: built.revisionHash, [ANNOTATION_REVISION]: String(built.revision) });
  await steps.syncRevision(ws, buildControllerRevision(ws, built.revisionHash, built.revision), built.revisionHash);

  if (current) return report({ kind: 'job', job: observeJob(current, caches.pods.list({ namespace: ns, selector: { matchLabels: { [LABEL_WORKSPACE_NAME]: name } } })) });
  if (job) {
    // A new revision: the old Job goes first; its delete event brings us back to create the new one.
    if (!job.metadata?.deletionTimestamp) {
      const message = `the spec changed (revision ${job.metadata?.annotations?.[ANNOTATION_REVISION] ?? '?'} → ${built.revision}): deleting Job ${ns}/${name} to rerun training`;
      await recorder.event(ws, 'Normal', TuningReason.JobReplaced, message);
      await client.delete(Resources.jobs, { namespace: ns, name }, { uid: job.metadata?.uid ?? '', propagationPolicy: 'Foreground' }).catch(ignoreGone);
    }
    return report({ kind: 'waiting', reason: TuningReason.JobReplaced, message: `waiting for the previous revision's Job ${ns}/${name} to be deleted` });
  }
  if (!built.ok) {
    const p = built.problems[0]!;
    // Bring-your-own nodes that are not Ready yet: a node event brings us back.
    if (p.reason === 'NoReadyNodes') return report({ kind: 'waiting', reason: TuningReason.WaitingForNodes, message: `waiting for nodes: ${p.message}` });
    return report({ kind: 'invalid', reason: p.reason, message: `${p.field}: ${p.message}` });
  }

  const missing = await missingSecrets(ws, deps);
  if (missing.length) {
    await report({ kind: 'waiting', reason: TuningReason.SecretNotFound, message: `Secret ${missing.join(', ')} named in tuning does not exist in namespace ${ns}; the Job's pod could not start without it`, warn: true });
    return { requeueAfterMs: SECRETS_RECHECK_MS };
  }

  const provisioning = await steps.provision(ws, 1, resolved);
  if (provisioning) ws = provisioning.ws;
  if (provisioning && !provisioning.plan.nodesUsable) {
    const waiting = provisioning.plan.nodeIssue ?? provisioning.plan.claims;
    await report({ kind: 'waiting', reason: TuningReason.WaitingForNodes, message: `waiting for nodes: ${waiting.message}` }, provisioning.plan);
    return provisioning.plan.recheckAfterMs ? { requeueAfterMs: provisioning.plan.recheckAfterMs } : {};
  }

  const { configMap, trainingConfig } = built.objects;
  const liveCopy = trainingConfig && caches.configMaps.get(ns, trainingConfig.metadata?.name ?? '');
  if (liveCopy && controllerOf(liveCopy)?.uid !== ws.metadata.uid) {
    return report({ kind: 'invalid', reason: 'ObjectNotOwned', message: `ConfigMap ${ns}/${liveCopy.metadata?.name} exists and is not controlled by this workspace; kaito-ts leaves it untouched` });
  }
  if (configMap) await steps.createConfigMapIfMissing(configMap);
  if (trainingConfig && needsApply(trainingConfig, liveCopy)) caches.configMaps.upsert(await client.apply(Resources.configMaps, trainingConfig));
  let created: V1Job;
  try {
    created = await client.apply<V1Job>(Resources.jobs, built.objects.job);
  } catch (err) {
    // The API server refused the Job itself (e.g. a volume source it cannot accept): say so, do not retry.
    if (!isInvalid(err)) throw err;
    const why = toKubeError(err).message;
    return report({ kind: 'invalid', reason: 'InvalidJob', message: `the API server refused Job ${ns}/${name}: ${why.length > 500 ? `${why.slice(0, 500)}…` : why}` });
  }
  caches.jobs.upsert(created);
  await recorder.event(ws, 'Normal', 'TuningJobCreated', `created Job ${ns}/${name} for revision ${built.revision}`);
  return report({ kind: 'job', job: observeJob(created, []) }, provisioning?.plan);
}

/** Secrets are not watched (nothing secret in memory): a workspace waiting for one looks again this often. */
export const SECRETS_RECHECK_MS = 30_000;

/**
 * The pull and push secrets that do not exist: one GET each, only before a Job is made (KAITO checks
 * nothing and the pod hangs in ContainerCreating).
 */
async function missingSecrets(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<string[]> {
  const names = [...(ws.tuning?.input?.image ? (ws.tuning.input.imagePullSecrets ?? []) : []), ...(ws.tuning?.output?.image && ws.tuning.output.imagePushSecret ? [ws.tuning.output.imagePushSecret] : [])];
  const missing: string[] = [];
  for (const name of new Set(names)) {
    try {
      await deps.client.get(Resources.secrets, ws.metadata.namespace, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      missing.push(name);
    }
  }
  return missing;
}

export async function writeTuningStatus(ws: WorkspaceObject, deps: WorkspaceDeps, nodes: Pick<StatusInput, 'nodes' | 'nodeClaims'>, outcome: TuningOutcome): Promise<Result> {
  const { status, changed } = tuningStatus(ws, nodes, outcome, deps.now());
  if (!changed) return {};
  const before = ws.status?.state;
  if (outcome.kind === 'invalid' || (outcome.kind === 'waiting' && outcome.warn)) await deps.recorder.event(ws, 'Warning', outcome.reason, outcome.message);
  else if (outcome.kind === 'job' && status.state !== before && status.state === 'Failed') await deps.recorder.event(ws, 'Warning', 'TuningJobFailed', outcome.job.message);
  else if (outcome.kind === 'job' && status.state !== before && status.state === 'Succeeded') await deps.recorder.event(ws, 'Normal', 'TuningJobSucceeded', outcome.job.message);
  const fresh = deps.caches.workspaces.get(ws.metadata.namespace, ws.metadata.name ?? '') ?? ws;
  await writeStatusIfChanged(deps.client, Resources.workspaces, fresh, status as Record<string, unknown>, {
    mode: 'merge',
    onWritten: (obj: KubernetesObject) => deps.caches.workspaces.upsert(obj as WorkspaceObject),
  }).catch(ignoreGone);
  return {};
}
