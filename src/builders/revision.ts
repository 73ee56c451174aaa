// The spec hash and ControllerRevision (spec §4.5), byte-identical to KAITO's so workspaces created
// by the Go operator are adopted without a spurious new revision and rollout.
import { createHash } from 'node:crypto';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { ANNOTATION_HASH, LABEL_REVISION_WORKSPACE_NAME } from '../api/labels.js';
import type { Workspace } from '../api/types.js';
import { encodeGo, encodeGoDocument, type GoStructTable } from './gojson/encode.js';
import { K8S_STRUCTS } from './gojson/k8s-types.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { ownedMeta, workspaceName, workspaceNamespace } from './meta.js';

// KAITO v1beta1 Go structs (api/v1beta1/workspace_types.go at 0.8.0), fields in declaration order.
export const KAITO_STRUCTS: GoStructTable = {
  ...K8S_STRUCTS,
  ResourceSpec: [
    ['count', '*number', true],
    ['instanceType', 'string', true],
    ['labelSelector', '*LabelSelector', false],
    ['preferredNodes', '[]string', true],
    // KAITO v0.12; refused by kaito-ts, but hashed as KAITO hashes it.
    ['partition', '*PartitionSpec', true],
  ],
  PartitionSpec: [
    ['mode', 'string', false],
    ['profile', 'string', true],
    ['count', '*number', true],
  ],
  InferenceSpec: [
    ['preset', '*PresetSpec', true],
    ['template', '*PodTemplateSpec', true],
    ['config', 'string', true],
    ['adapters', '[]AdapterSpec', true],
  ],
  // PresetMeta (name, accessMode) is embedded inline; PresetOptions is a non-pointer struct, so always emitted.
  PresetSpec: [
    ['name', 'string', false],
    ['accessMode', 'string', true],
    ['presetOptions', 'PresetOptions', true],
  ],
  PresetOptions: [
    ['image', 'string', true],
    ['imagePullSecrets', '[]string', true],
    ['modelAccessSecret', 'string', true],
  ],
  AdapterSpec: [
    ['source', '*DataSource', true],
    ['strength', '*string', true],
  ],
  DataSource: [
    ['name', 'string', true],
    ['urls', '[]string', true],
    ['volumeSource', '*VolumeSource', true],
    ['image', 'string', true],
    ['imagePullSecrets', '[]string', true],
  ],
  TuningSpec: [
    ['preset', '*PresetSpec', true],
    ['method', 'string', true],
    ['config', 'string', true],
    ['input', '*DataSource', false],
    ['output', '*DataDestination', false],
  ],
  DataDestination: [
    ['volumeSource', '*VolumeSource', true],
    ['image', 'string', true],
    ['imagePushSecret', 'string', true],
  ],
};

/** The exact bytes KAITO hashes: three json.Encoder documents (resource, inference, tuning). */
export function specHashInput(ws: Pick<Workspace, 'resource' | 'inference' | 'tuning'>): string {
  return (
    encodeGoDocument(ws.resource, 'ResourceSpec', KAITO_STRUCTS) +
    encodeGoDocument(ws.inference, '*InferenceSpec', KAITO_STRUCTS) +
    encodeGoDocument(ws.tuning, '*TuningSpec', KAITO_STRUCTS)
  );
}

/** Lowercase hex SHA-256 of {@link specHashInput}; metadata and status never influence it. */
export function computeSpecHash(ws: Pick<Workspace, 'resource' | 'inference' | 'tuning'>): string {
  return createHash('sha256').update(specHashInput(ws), 'utf8').digest('hex');
}

/** `<name>-<first 5 hex chars of the hash>`. */
export function controllerRevisionName(ws: Workspace, hash: string): string {
  return `${workspaceName(ws)}-${hash.slice(0, 5)}`;
}

/**
 * The revision number for `hash` given the workspace's existing ControllerRevisions: the number of the
 * revision that already carries this hash (a reverted spec reuses it, as in KAITO), else max + 1, else 1.
 */
export function revisionNumberFor(hash: string, existing: readonly DeepReadonly<V1ControllerRevision>[]): number {
  const same = existing.find((r) => r.metadata?.annotations?.[ANNOTATION_HASH] === hash);
  if (same) return same.revision;
  return existing.reduce((max, r) => Math.max(max, r.revision), 0) + 1;
}

/** The ControllerRevision KAITO records for this spec (data keys sorted: inference, resource, tuning). */
export function buildControllerRevision(ws: Workspace, hash: string, revision: number): V1ControllerRevision {
  // json.Marshal of map[string]any sorts keys; values keep Go field order.
  const data = JSON.parse(
    `{"inference":${encodeGo(ws.inference, '*InferenceSpec', KAITO_STRUCTS)},` +
      `"resource":${encodeGo(ws.resource, 'ResourceSpec', KAITO_STRUCTS)},` +
      `"tuning":${encodeGo(ws.tuning, '*TuningSpec', KAITO_STRUCTS)}}`,
  ) as object;
  const meta = ownedMeta(ws, controllerRevisionName(ws, hash));
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      ...meta,
      namespace: workspaceNamespace(ws),
      labels: { [LABEL_REVISION_WORKSPACE_NAME]: workspaceName(ws) },
      annotations: { [ANNOTATION_HASH]: hash },
    },
    data,
    revision,
  };
}
