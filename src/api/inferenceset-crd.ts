// The InferenceSet CustomResourceDefinition, generated from code (`kaito-ts crd --kind inferenceset`).
// Field layout, defaults, short names, printer columns and the status and scale subresources are
// KAITO v0.12.0's (charts/kaito/workspace/templates/kaito.sh_inferencesets.yaml). KAITO's validating
// webhook rules that need no cluster state become CEL rules here; the child each InferenceSet
// creates is checked as a Workspace by reusing the Workspace CRD's own sub-schemas for
// `template.inference` and `labelSelector` (KAITO #2274 runs the Workspace webhook on that child).
// The rules that depend on the operator's flags (instanceType per provisioner) are controller
// conditions (src/controllers/inferenceset/plan.ts).
import {
  conditionSchema,
  inferenceSchema,
  int,
  labelSelectorSchema,
  obj,
  opaque,
  partitionSchema,
  rules,
  str,
  WORKSPACE_NAME_MAX,
  type CustomResourceDefinition,
} from './crd.js';
import { INFERENCESET_KIND, INFERENCESET_PLURAL } from './inferenceset-types.js';
import { InferenceSetConditionType } from './labels.js';
import { DNS1123_LABEL_REGEX, Msg } from './messages.js';
import type { OpenApiSchema } from './openapi-schema.js';
import { ALPHA_VERSION, GROUP, VERSION } from './types.js';

export const INFERENCESET_CRD_NAME = `${INFERENCESET_PLURAL}.${GROUP}`;
/**
 * The longest InferenceSet name: each child is named `<name>-` plus 5 random characters by the API
 * server (generateName) and must itself fit WORKSPACE_NAME_MAX.
 */
export const INFERENCESET_NAME_MAX = WORKSPACE_NAME_MAX - 6;

/** A copy of a schema tree without the transition rules (`oldSelf`): template edits are allowed. */
function withoutTransitionRules(s: OpenApiSchema): OpenApiSchema {
  const out: OpenApiSchema = { ...s };
  const kept = (s['x-kubernetes-validations'] ?? []).filter((r) => !r.rule.includes('oldSelf'));
  if (s['x-kubernetes-validations']) {
    if (kept.length) out['x-kubernetes-validations'] = kept;
    else delete out['x-kubernetes-validations'];
  }
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, withoutTransitionRules(v)]));
  if (s.items) out.items = withoutTransitionRules(s.items);
  if (typeof s.additionalProperties === 'object') out.additionalProperties = withoutTransitionRules(s.additionalProperties);
  return out;
}

// robfig/cron's ParseStandard: five fields, or a descriptor.
const CRON_RE = String.raw`^\s*(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|@every\s+\S+|\S+(\s+\S+){4})\s*$`;

function specSchema(version: string): OpenApiSchema {
  const beta = version === VERSION;
  const resource: Record<string, OpenApiSchema> = {
    instanceType: str('GPU node SKU. Required when node auto-provisioning is enabled; must be empty for BYO nodes.', { maxLength: 253 }),
  };
  if (beta)
    resource.partition = partitionSchema(
      'GPU partitioning applied to each replica, copied to each child Workspace (KAITO: needs the enableMIG feature gate and BYO nodes; refused by kaito-ts). Immutable.',
    );
  return obj(
    'Spec defines the desired state of InferenceSet',
    {
      template: obj(
        'Template is the template used to create the InferenceSet.',
        {
          metadata: opaque('Labels and annotations copied onto every child Workspace (schemaless, as in KAITO).'),
          resource: obj(
            'GPU nodes of each replica.',
            resource,
            beta
              ? rules(
                  // KAITO: "field is immutable" on template.resource.partition.
                  {
                    rule: 'has(self.partition) == has(oldSelf.partition) && (!has(self.partition) || self.partition == oldSelf.partition)',
                    message: Msg.immutable,
                    fieldPath: '.partition',
                  },
                )
              : {},
          ),
          // KAITO's v1alpha1 InferenceSet embeds the v1beta1 InferenceSpec: both versions take the v1beta1 shape.
          inference: withoutTransitionRules(inferenceSchema(VERSION)),
        },
        { required: ['inference'] },
      ),
      replicas: int('Replicas is the desired number of workspaces to be created.', { format: 'int32', default: 1, minimum: 0 }),
      nodeCountLimit: int(
        'NodeCountLimit is the maximum number of GPU nodes that can be created for the InferenceSet. kaito-ts caps scale-ups at it (KAITO does not enforce it; annotation kaito-ts.io/enforce-node-count-limit: "false" turns that off).',
      ),
      labelSelector: labelSelectorSchema('Every child Workspace uses this as resource.labelSelector.', false),
      updateStrategy: {
        ...opaque('UpdateStrategy indicates the strategy to use to replace existing workspaces with new ones (schemaless, as in KAITO).'),
        default: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      },
      autoUpgrade: obj('AutoUpgrade configures automatic base image upgrade behavior (accepted; kaito-ts does not upgrade base images).', {
        enabled: { description: 'Whether replicas are upgraded automatically.', type: 'boolean', default: false },
        strategy: str('InPlace or Surge.', { enum: ['InPlace', 'Surge'], default: 'InPlace' }),
        maintenanceWindow: obj(
          'When upgrades may start.',
          {
            schedule: str('A 5-field cron expression (UTC).', {
              maxLength: 256,
              ...rules({
                rule: `self.matches(r'${CRON_RE}')`,
                message: 'invalid cron expression: expected 5 fields (minute hour day-of-month month day-of-week) or a descriptor',
              }),
            }),
            duration: str('How long the window stays open after each tick.', {
              default: '4h',
              maxLength: 64,
              ...rules({ rule: "duration(self) > duration('0s')", message: 'must be a positive duration' }),
            }),
          },
          { required: ['schedule'] },
        ),
      }),
    },
    { required: ['labelSelector', 'template'] },
  );
}

function statusSchema(version: string): OpenApiSchema {
  const metric: Record<string, OpenApiSchema> = {
    description: str('The benchmark type and load pattern.'),
    value: str('The metric value.'),
    unit: str('The unit of the value.'),
  };
  if (version === VERSION) metric.config = { description: 'Benchmark parameters.', type: 'object', additionalProperties: { type: 'string' } };
  return obj('Status defines the observed state of InferenceSet', {
    replicas: int('Replicas is the total number of workspaces created by the InferenceSet.'),
    readyReplicas: int('ReadyReplicas is the number of workspaces that are in ready state.'),
    selector: str('Selector is used to select the pods that provide metrics for making scaling action decisions.'),
    conditions: {
      description: `Conditions: ${Object.values(InferenceSetConditionType).join(', ')}.`,
      type: 'array',
      items: conditionSchema(),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
    performance: obj('Aggregated performance across replicas.', {
      metrics: {
        description: 'Metric name to Metric.',
        type: 'object',
        additionalProperties: obj('One metric.', metric, { required: ['description', 'value'] }),
      },
    }),
    autoUpgrade: obj('Observed state of automatic base image upgrades.', {
      numDriftedWorkspaces: int('Workspaces on another base image.'),
      lastSuccessfulUpgradeTime: str('The last successful upgrade.', { format: 'date-time' }),
    }),
  });
}

function rootSchema(version: string): OpenApiSchema {
  const name = 'self.metadata.name';
  return obj(
    'InferenceSet is the Schema for the InferenceSet API',
    {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 253 }, generateName: { type: 'string', maxLength: 253 } } },
      spec: specSchema(version),
      status: statusSchema(version),
    },
    {
      required: ['spec'],
      ...rules(
        // KAITO: validation.IsDNS1123Label(name).
        { rule: `${name}.matches('^${DNS1123_LABEL_REGEX}$')`, message: Msg.labelFormat, fieldPath: '.metadata.name' },
        {
          rule: `size(${name}) <= ${INFERENCESET_NAME_MAX}`,
          message: `metadata.name must be no more than ${INFERENCESET_NAME_MAX} characters: each child Workspace is named <name>-<5 characters> and a Workspace name holds at most ${WORKSPACE_NAME_MAX}`,
          fieldPath: '.metadata.name',
        },
      ),
    },
  );
}

const PRINTER_COLUMNS = [
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  { name: 'ReadyReplicas', type: 'integer', jsonPath: '.status.readyReplicas' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** The whole InferenceSet CRD. Pure and deterministic. */
export function inferenceSetCrd(): CustomResourceDefinition {
  const version = (name: string, storage: boolean) => ({
    name,
    served: true,
    storage,
    subresources: {
      status: {} as Record<string, never>,
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    },
    additionalPrinterColumns: PRINTER_COLUMNS.map((c) => ({ ...c })),
    schema: { openAPIV3Schema: rootSchema(name) },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: INFERENCESET_CRD_NAME, labels: { 'app.kubernetes.io/part-of': 'kaito-ts' } },
    spec: {
      group: GROUP,
      names: {
        kind: INFERENCESET_KIND,
        listKind: `${INFERENCESET_KIND}List`,
        plural: INFERENCESET_PLURAL,
        singular: 'inferenceset',
        shortNames: ['is', 'isets'],
        categories: ['inferenceset'],
      },
      scope: 'Namespaced',
      versions: [version(ALPHA_VERSION, false), version(VERSION, true)],
    },
  };
}
