// What the demo's live table shows, computed from one snapshot of API objects (pure: no client, no clock).
import type { V1Deployment, V1Node, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { findCondition } from '../api/workspace-conditions.js';
import {
  ConditionType,
  InferenceSetConditionType,
  LABEL_INFERENCESET_CREATED_BY,
  LABEL_INSTANCE_TYPE,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAME,
} from '../api/labels.js';
import type { InferenceSet } from '../api/inferenceset-types.js';
import type { Workspace } from '../api/types.js';
import { MODEL_WEIGHTS_VOLUME } from '../builders/volumes.js';
import type { NodeClaim } from '../builders/nodeclaim.js';
import { volumeKindOf } from '../controllers/workspace/gather-facts.js';
import { claimIsReady } from '../controllers/workspace/provisioning-plan.js';

export interface Snapshot {
  workspaces: Workspace[];
  inferenceSets: InferenceSet[];
  statefulSets: V1StatefulSet[];
  deployments: V1Deployment[];
  claims: V1PersistentVolumeClaim[];
  pods: V1Pod[];
  nodes: V1Node[];
  /** The namespace's NodeClaims (node auto-provisioning); empty without the CRD. */
  nodeClaims: NodeClaim[];
}

export interface Row {
  /** A standalone workspace, an InferenceSet, or one of its child Workspaces (listed under it). */
  kind: 'workspace' | 'inferenceset' | 'child';
  /** The workspace's (or set's) name as the table shows it: `inferenceset/<name>`, `└ <child>`. */
  workspace: string;
  /** Instance type of the node pod 0 runs on (else of the first selected node), and that node. */
  sku: string;
  replicas: string;
  volume: string;
  claim: string;
  /** NodeClaims made for the workspace: name and state, and the node each got. */
  nodeClaim: string;
  /** InferenceReady status and reason. */
  inference: string;
  /** Only for workspaces with a legacy Deployment in the samples. */
  migration: string;
  ready: boolean;
  /** The InferenceReady message, for the timeout line. */
  message: string;
}

const byName = <T extends { metadata?: { name?: string } }>(items: T[], name: string): T | undefined => items.find((i) => i.metadata?.name === name);

function skuOf(ws: Workspace, pod0: V1Pod | undefined, nodes: V1Node[]): string {
  const nodeName = pod0?.spec?.nodeName ?? ws.status?.workerNodes?.[0];
  if (!nodeName) return '-';
  const type = byName(nodes, nodeName)?.metadata?.labels?.[LABEL_INSTANCE_TYPE] ?? '?';
  return pod0?.spec?.nodeName ? `${type} (${nodeName})` : type;
}

/** Claims of the weights volume template: `model-weights-volume-<sts>-<ordinal>`. */
function claimStatus(sts: V1StatefulSet, claims: V1PersistentVolumeClaim[]): string {
  const replicas = sts.spec?.replicas ?? 1;
  const phases = Array.from({ length: replicas }, (_, i) => byName(claims, `${MODEL_WEIGHTS_VOLUME}-${sts.metadata?.name}-${i}`)?.status?.phase ?? 'none');
  const bound = phases.filter((p) => p === 'Bound').length;
  if (bound === replicas) return replicas === 1 ? 'Bound' : `Bound ${bound}/${replicas}`;
  const worst = phases.find((p) => p !== 'Bound') ?? 'Pending';
  return replicas === 1 ? worst : `${worst} (${bound}/${replicas} Bound)`;
}

/** `ws1a2b3c4d5 Ready → aks-ws1a2b3c4d5-…` per claim; `-` when the workspace made none. */
function nodeClaimState(ws: Workspace, claims: NodeClaim[]): string {
  const name = ws.metadata.name;
  const mine = claims.filter((c) => c.metadata.labels[LABEL_WORKSPACE_NAME] === name || c.metadata.labels[LABEL_KARPENTER_WORKSPACE_NAME] === name);
  if (mine.length === 0) return '-';
  return mine
    .map((c) => {
      const conds = c.status?.conditions ?? [];
      const state = c.metadata.deletionTimestamp
        ? 'Deleting'
        : claimIsReady(c)
          ? 'Ready'
          : (['Initialized', 'Registered', 'Launched'].find((t) => conds.some((x) => x.type === t && x.status === 'True')) ?? 'Pending');
      return `${c.metadata.name} ${state}${c.status?.nodeName ? ` → ${c.status.nodeName}` : ''}`;
    })
    .join(', ');
}

function migrationState(d: V1Deployment | undefined): string {
  if (!d) return 'Deployment deleted';
  if (d.metadata?.deletionTimestamp) return 'Deployment deleting';
  return `Deployment present (${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1} ready)`;
}

function workspaceRow(ws: Workspace, snap: Snapshot, legacyNames: ReadonlySet<string>, kind: 'workspace' | 'child'): Row {
  const name = ws.metadata.name ?? '';
  const sts = byName(snap.statefulSets, name);
  const pod0 = byName(snap.pods, `${name}-0`);
  const volume = volumeKindOf(sts);
  const cond = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
  // True only for the generation the operator has seen: status that tells the truth.
  const current = cond?.observedGeneration === undefined || cond.observedGeneration === ws.metadata.generation;
  const legacy = legacyNames.has(name) ? byName(snap.deployments, name) : undefined;
  const deleting = ws.metadata.deletionTimestamp !== undefined;
  const ready = cond?.status === 'True' && current && legacy === undefined && !deleting;
  return {
    kind,
    workspace: kind === 'child' ? `└ ${name}${deleting ? ' (deleting)' : ''}` : name,
    sku: skuOf(ws, pod0, snap.nodes),
    replicas: sts ? `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 1}` : '-',
    volume: volume === 'nvme' ? 'nvme claim' : (volume ?? '-'),
    claim: sts && volume === 'nvme' ? claimStatus(sts, snap.claims) : '-',
    nodeClaim: nodeClaimState(ws, snap.nodeClaims),
    inference: cond ? `${cond.status} ${cond.reason}` : '-',
    migration: legacyNames.has(name) ? migrationState(legacy) : '-',
    ready,
    message: deleting ? 'being deleted' : (cond?.message ?? 'no InferenceReady condition yet'),
  };
}

/** The set's children, oldest first (what a scale-down leaves is then the top of the list). */
export function childrenOf(snap: Pick<Snapshot, 'workspaces'>, setName: string): Workspace[] {
  return snap.workspaces
    .filter((ws) => ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] === setName)
    .sort(
      (a, b) =>
        String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) ||
        (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    );
}

/**
 * An InferenceSet's own row: ready children / desired replicas and its InferenceSetReady condition.
 * Done when exactly `replicas` children exist (none being deleted), each InferenceReady, and the set's
 * status counts them all.
 */
function inferenceSetRow(is: InferenceSet, children: Row[]): Row {
  const desired = is.spec.replicas ?? 1;
  const cond = findCondition(is.status?.conditions, InferenceSetConditionType.Ready);
  const readyReplicas = is.status?.readyReplicas ?? 0;
  const ready = children.length === desired && children.every((c) => c.ready) && readyReplicas === desired;
  return {
    kind: 'inferenceset',
    workspace: `inferenceset/${is.metadata.name ?? ''}`,
    sku: is.spec.template.resource?.instanceType ?? '-',
    replicas: `${readyReplicas}/${desired}`,
    volume: '-',
    claim: '-',
    nodeClaim: '-',
    inference: cond ? `${cond.status} ${cond.reason}` : '-',
    migration: '-',
    ready,
    message: `${children.length} child Workspace(s) for ${desired} replica(s), ${readyReplicas} ready${cond?.message ? `; ${cond.message}` : ''}`,
  };
}

/** Standalone workspaces first, then each InferenceSet followed by its children. */
export function rowsOf(snap: Snapshot, legacyNames: ReadonlySet<string>): Row[] {
  const sets = [...snap.inferenceSets].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const setNames = new Set(sets.map((is) => is.metadata.name ?? ''));
  const standalone = snap.workspaces.filter((ws) => !setNames.has(ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] ?? ''));
  const rows = standalone.map((ws) => workspaceRow(ws, snap, legacyNames, 'workspace'));
  for (const is of sets) {
    const children = childrenOf(snap, is.metadata.name ?? '').map((ws) => workspaceRow(ws, snap, legacyNames, 'child'));
    rows.push(inferenceSetRow(is, children), ...children);
  }
  return rows;
}

const COLUMNS: [Exclude<keyof Row, 'kind' | 'ready' | 'message'>, string][] = [
  ['workspace', 'WORKSPACE'],
  ['nodeClaim', 'NODECLAIM'],
  ['sku', 'SKU (NODE)'],
  ['replicas', 'READY'],
  ['volume', 'WEIGHTS'],
  ['claim', 'CLAIM'],
  ['inference', 'INFERENCEREADY'],
  ['migration', 'MIGRATION'],
];

/** Left-aligned columns separated by two spaces, like kubectl. */
export function formatRows(rows: Row[]): string[] {
  const cells = [COLUMNS.map(([, h]) => h), ...rows.map((r) => COLUMNS.map(([k]) => String(r[k])))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i]?.length ?? 0)));
  return cells.map((c) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** Workspace rows (standalone and children): what "n/N InferenceReady" counts. */
export const workspaceRows = (rows: Row[]): Row[] => rows.filter((r) => r.kind !== 'inferenceset');

/**
 * Done: every sample workspace and InferenceSet has its row, and every row is ready (a set's row only
 * with exactly its replicas as ready children, so a scale is done once the extra child is gone).
 */
export function allReady(rows: Row[], expected: { workspaces: number; inferenceSets: number }): boolean {
  const count = (kind: Row['kind']): number => rows.filter((r) => r.kind === kind).length;
  return count('workspace') === expected.workspaces && count('inferenceset') === expected.inferenceSets && rows.every((r) => r.ready);
}

/** One line for a timeout: which workspaces (and InferenceSets) are not ready, and why. */
export function notReadySummary(rows: Row[]): string {
  const waiting = rows.filter((r) => !r.ready);
  const parts = waiting.map(
    (r) =>
      `${r.workspace.replace(/^└ /, '')} (${r.inference === '-' ? 'no status yet' : r.inference}${r.migration.startsWith('Deployment present') ? `, ${r.migration}` : ''}: ${r.message})`,
  );
  const workspaces = workspaceRows(rows);
  const sets = rows.length - workspaces.length;
  const of = `${workspaces.filter((r) => !r.ready).length} of ${workspaces.length} workspaces not InferenceReady`;
  const setsPart = sets > 0 ? `, ${waiting.length - workspaces.filter((r) => !r.ready).length} of ${sets} InferenceSets not at their replicas` : '';
  return `${of}${setsPart}: ${parts.join('; ')}`;
}
