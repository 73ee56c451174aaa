// The InferenceSet's revision hash, byte-identical to KAITO v0.12's ComputeInferenceSetHash
// (sha256 of json.Encoder over the Go InferenceSetSpec), so a set KAITO made is adopted without a
// new ControllerRevision. The API server returns a custom resource with its keys sorted; Go writes
// struct fields in declaration order and always emits non-pointer structs, so JSON.stringify of
// the spec as read would give another hash.
import { createHash } from 'node:crypto';
import type { InferenceSet } from '../api/inferenceset-types.js';
import { encodeGo, encodeGoDocument, type GoStructTable } from './gojson/encode.js';
import { KAITO_STRUCTS } from './revision.js';

// KAITO v0.12.0 api/v1beta1/inferenceset_types.go, and apps/v1's StatefulSetUpdateStrategy; fields in declaration order.
const INFERENCESET_STRUCTS: GoStructTable = {
  ...KAITO_STRUCTS,
  InferenceSetSpec: [
    ['template', 'InferenceSetTemplate', false],
    ['replicas', '*number', true],
    ['nodeCountLimit', 'number', true],
    ['labelSelector', '*LabelSelector', false],
    ['updateStrategy', 'StatefulSetUpdateStrategy', true],
    ['autoUpgrade', '*AutoUpgradePolicy', true],
  ],
  InferenceSetTemplate: [
    ['metadata', 'ObjectMeta', true],
    ['resource', 'InferenceSetResourceSpec', false],
    ['inference', 'InferenceSpec', false],
  ],
  InferenceSetResourceSpec: [
    ['instanceType', 'string', true],
    ['partition', '*PartitionSpec', true],
  ],
  StatefulSetUpdateStrategy: [
    ['type', 'string', true],
    ['rollingUpdate', '*RollingUpdateStatefulSetStrategy', true],
  ],
  RollingUpdateStatefulSetStrategy: [
    ['partition', '*number', true],
    ['maxUnavailable', '*intOrString', true],
  ],
  AutoUpgradePolicy: [
    ['enabled', 'bool', false],
    ['strategy', 'string', true],
    ['maintenanceWindow', '*MaintenanceWindow', true],
  ],
  // metav1.Duration is written as Go formats a duration ("2h0m0s"); a set's duration is kept as the API holds it.
  MaintenanceWindow: [
    ['schedule', 'string', false],
    ['duration', '*string', true],
  ],
};

/** KAITO's ComputeInferenceSetHash: lowercase hex sha256 of the Go-encoded spec, trailing newline included. */
export function inferenceSetSpecHash(spec: InferenceSet['spec']): string {
  return createHash('sha256')
    .update(encodeGoDocument(spec, 'InferenceSetSpec', INFERENCESET_STRUCTS), 'utf8')
    .digest('hex');
}

/** The ControllerRevision's data as KAITO writes it: `{"Spec": <the Go-encoded spec>}`. */
export function inferenceSetRevisionData(spec: InferenceSet['spec']): object {
  return JSON.parse(`{"Spec":${encodeGo(spec, 'InferenceSetSpec', INFERENCESET_STRUCTS)}}`) as object;
}
