// The plan of a tuning workspace: validate, record the revision, get nodes (node auto-provisioning),
// create the Job once per revision, and report what the Job says. A Job that exists for the current
// revision is only observed, never re-created, so an operator restart never reruns training; a new
// revision deletes the old Job first and creates the new one once it is gone (W10).
import { ANNOTATION_HASH, ANNOTATION_REVISION } from '../../api/labels.js';
import { errorsOf, formatIssues, validateWorkspace } from '../../api/validation.js';
import { findConfigMap, resolveFromFacts } from '../../builders/facts.js';
import { buildControllerRevision } from '../../builders/revision.js';
import { buildTuning, tuningObjectList } from '../../builders/tuning/build.js';
import { tuningConfigLookup } from '../../builders/tuning/config.js';
import { needsApply } from '../../runtime/drift.js';
import { Resources } from '../../runtime/resources.js';
import type { Plan } from '../shared/actions.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from './deletion.js';
import { factsOf } from './gather-facts.js';
import { notOwnedMessage, ownedBy } from './ownership.js';
import { PlanBuilder } from './plan-builder.js';
import { Reason } from './reasons.js';
import { planRevision } from './revisions.js';
import type { WorkspaceSnapshot } from './snapshot.js';
import { observeJob, TuningReason } from './tuning-status.js';

/** Secrets named by tuning are looked for again this often while missing (their watch maps to model Secrets only). */
export const SECRETS_RECHECK_MS = 30_000;

export function planTuning(snap: WorkspaceSnapshot): Plan {
  const b = new PlanBuilder(snap);
  const { ws, job } = snap;
  const ns = ws.metadata.namespace ?? 'default';
  const name = ws.metadata.name ?? '';
  if (job && !ownedBy(job, ws)) return b.fail(Reason.NotOwned, notOwnedMessage('Job', job));
  const facts = factsOf(snap);
  // Resolved once (preset, runtime, GPU facts): validation and buildTuning read the same value.
  const resolved = resolveFromFacts(ws, facts);
  const built = buildTuning(ws, facts, resolved);
  const current = job?.metadata?.annotations?.[ANNOTATION_REVISION] === String(built.revision) ? job : undefined;
  // The ConfigMap is checked before a Job is made from it; later edits of it change nothing (as in KAITO).
  const issues = errorsOf(validateWorkspace(ws, { resolved, operation: 'create', ...(current ? {} : { tuningConfig: tuningConfigLookup(ws, facts) }) }));
  if (issues.length) return b.fail(Reason.InvalidSpec, formatIssues(issues));
  const cr = buildControllerRevision(ws, built.revisionHash, built.revision);
  const revision = planRevision(snap, cr, built.revisionHash);
  if (!revision.ok) return b.fail(revision.reason, revision.message);

  if (built.ok) b.desired = tuningObjectList(built.objects);
  // The revision is recorded on every path from here (a failure below starts its plan afresh).
  b.metadata({ [ANNOTATION_HASH]: built.revisionHash, [ANNOTATION_REVISION]: String(built.revision) }).add(...revision.actions);
  const nodes = () => b.nodeFacts(1);
  if (current) {
    return b.tuningStatus(nodes(), { kind: 'job', job: observeJob(current, snap.pods) }).done();
  }
  if (job) {
    // A new revision: the old Job goes first; its delete event brings us back to create the new one.
    if (!job.metadata?.deletionTimestamp) {
      const message = `the spec changed (revision ${job.metadata?.annotations?.[ANNOTATION_REVISION] ?? '?'} → ${built.revision}): deleting Job ${ns}/${name} to rerun training`;
      b.event('Normal', TuningReason.JobReplaced, message);
      b.add({
        kind: 'delete',
        type: Resources.jobs,
        ref: { namespace: ns, name },
        uid: job.metadata?.uid ?? '',
        propagationPolicy: 'Foreground',
        why: `revision ${built.revision} reruns training`,
      });
    }
    return b
      .tuningStatus(nodes(), {
        kind: 'waiting',
        reason: TuningReason.JobReplaced,
        message: `waiting for the previous revision's Job ${ns}/${name} to be deleted`,
      })
      .done();
  }
  if (!built.ok) {
    const p = built.problems[0]!;
    // Bring-your-own nodes that are not Ready yet: a node event brings us back.
    if (p.reason !== 'NoReadyNodes') return b.fail(p.reason, `${p.field}: ${p.message}`);
    return b.tuningStatus(nodes(), { kind: 'waiting', reason: TuningReason.WaitingForNodes, message: `waiting for nodes: ${p.message}` }).done();
  }
  const { configMap, trainingConfig } = built.objects;
  const liveCopy = trainingConfig && findConfigMap(snap, ns, trainingConfig.metadata?.name ?? '');
  if (liveCopy && !ownedBy(liveCopy, ws)) return b.fail(Reason.NotOwned, notOwnedMessage('ConfigMap', liveCopy));

  if (snap.missingSecrets.length) {
    const message = `Secret ${snap.missingSecrets.join(', ')} named in tuning does not exist in namespace ${ns}; the Job's pod could not start without it`;
    return b.tuningStatus(nodes(), { kind: 'waiting', reason: TuningReason.SecretNotFound, message, warn: true }).done(SECRETS_RECHECK_MS);
  }
  const provisioning = b.provision(1, resolved);
  if (provisioning && !provisioning.nodesUsable) {
    const waiting = provisioning.nodeIssue ?? provisioning.claims;
    return b
      .tuningStatus(b.nodeFacts(1, provisioning), { kind: 'waiting', reason: TuningReason.WaitingForNodes, message: `waiting for nodes: ${waiting.message}` })
      .done(provisioning.recheckAfterMs);
  }
  if (configMap && !findConfigMap(snap, ns, configMap.metadata?.name ?? '')) {
    const labelled = { ...configMap, metadata: { ...configMap.metadata, labels: { ...configMap.metadata?.labels, [MANAGED_BY_LABEL]: MANAGED_BY } } };
    b.add({ kind: 'create', type: Resources.configMaps, object: labelled, why: 'the default tuning config, copied into the namespace' });
  }
  if (trainingConfig && needsApply(trainingConfig, liveCopy))
    b.add({
      kind: 'apply',
      type: Resources.configMaps,
      object: trainingConfig,
      why: 'the training config of this revision',
      refusedReason: Reason.ChildObjectRejected,
    });
  b.add({ kind: 'apply', type: Resources.jobs, object: built.objects.job, why: `training for revision ${built.revision}`, refusedReason: Reason.InvalidJob });
  b.event('Normal', 'TuningJobCreated', `created Job ${ns}/${name} for revision ${built.revision}`);
  return b.tuningStatus(b.nodeFacts(1, provisioning), { kind: 'job', job: observeJob(built.objects.job, []) }).done();
}
