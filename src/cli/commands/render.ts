// `kaito-ts render`: print exactly what the operator would apply for a workspace, offline.
// The cluster is empty unless `--state` gives a multi-document YAML of StorageClasses, Nodes, ConfigMaps,
// Secrets (and ControllerRevisions). `--explain` adds the decisions: as YAML comments at the top with
// `-o yaml`, on stderr with `-o json` (stdout stays valid JSON either way).
import type { KubernetesObject, V1ControllerRevision } from '@kubernetes/client-node';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { parseFeatureGates } from '../../api/feature-gates.js';
import type { Workspace } from '../../api/types.js';
import { errorsOf, validateWorkspace } from '../../api/validation.js';
import { resolveCloudProvider } from '../../catalog/gpu-skus.js';
import { presetRegistry } from '../../catalog/presets.js';
import { formatDecisions } from '../../builders/decisions.js';
import { DEFAULT_RELEASE_NAMESPACE, defaultFacts, factsFromObjects, resolveFromFacts, type ClusterFacts } from '../../builders/facts.js';
import { inferenceConfigLookup } from '../../builders/inference-config.js';
import { workspaceNamespace } from '../../builders/meta.js';
import { buildWorkspace, objectList } from '../../builders/workspace.js';
import { buildTuning, tuningObjectList } from '../../builders/tuning/build.js';
import { tuningConfigLookup } from '../../builders/tuning/config.js';
import { describeAction } from '../../controllers/shared/actions.js';
import { templateHash, type InferenceSetObject } from '../../controllers/inferenceset/children.js';
import { specProblem } from '../../controllers/inferenceset/plan.js';
import { planInferenceSetOffline } from '../../diff/inferenceset-intent.js';
import { operatorConfigOf, provisionerOf } from '../../controllers/workspace/context.js';
import { podNodePinning } from '../../controllers/workspace/gather-facts.js';
import { planWorkspace } from '../../controllers/workspace/plan.js';
import { cachesFromObjects, readSnapshot } from '../../controllers/workspace/snapshot.js';
import { FIELD_MANAGER } from '../../runtime/client.js';
import { DEFAULT_NODE_PROVISIONING_TIMEOUT_MS } from '../../manager/options.js';
import type { Decision } from '../../api/types.js';
import { HF_TOKEN_KEY } from '../../api/labels.js';
import { inferencePresetOf } from '../../api/resolved-workspace.js';
import { LEGACY_PRESETS_FLAG, parseLegacyPresets, type KaitoGeneration } from '../../api/legacy-presets.js';
import { generationLines } from '../../builders/generation.js';
import { formatGiB, sizingInputs, type HubModelState } from '../../catalog/model-generator.js';
import type { TokenRef } from '../../controllers/workspace/hub-models.js';
import { hubLookup } from '../../controllers/workspace/snapshot.js';
import { CliError, type CliIO } from '../command-io.js';
import { CliHub, HUB_FLAGS, HUB_USAGE, hubFailure } from '../hub.js';
import { inputName, MAX_INPUT_LABEL } from '../input.js';
import { childWorkspacesToCheck, printedObjectsProblem } from '../../api/render-admission.js';
import { readRenderInputs } from '../render-input.js';

const USAGE = `Usage: kaito-ts render -f <workspace.yaml> [--state <cluster.yaml>] [-o yaml|json]
                       [--feature-gates k=v,...] [--cloud-provider azure|aws|arc] [--explain]
                       [--hf-endpoint URL] [--hf-timeout DURATION] [--legacy-presets v0.12|v0.8]

Prints the objects the operator would apply for the workspace (ControllerRevision, ConfigMap copy,
Services, StatefulSet; for a tuning workspace the ConfigMaps and the Job). For an InferenceSet: the
child Workspaces its controller would create (Workspaces of --state labelled as its children count). Without --state the cluster is empty. A workspace without a namespace renders
into "default". The file may hold several documents, as kubectl apply -f takes them: the kaito.sh objects
are rendered; ConfigMaps, Secrets, Nodes, StorageClasses beside them are read as cluster state (with
--state's), other kinds are skipped with a warning. -f - (or --state -) reads standard input. An input
larger than ${MAX_INPUT_LABEL}, not UTF-8, or with YAML beyond the limits in docs/operations.md is refused (exit 2). --explain adds why (NVMe or emptyDir, node count, runtime...): YAML comments on top
with -o yaml, stderr with -o json. A Hugging Face id outside KAITO's catalog is sized from the hub's
file list and config.json, read once per repo, with HF_TOKEN of the workspace's model access Secret
when -f or --state holds it, else the HF_TOKEN environment variable. ${HUB_USAGE}
--legacy-presets: a legacy short name (phi-4-mini-instruct, any letter case) renders as KAITO
v0.12.0 maps it to its catalog (v0.12, the default) or as KAITO v0.8.0 did (v0.8); as the operator's flag.
Environment: CLOUD_PROVIDER, PRESET_REGISTRY_NAME, RELEASE_NAMESPACE, HF_ENDPOINT, HF_TOKEN.
`;

interface Rendered {
  ws: Workspace;
  objects: object[];
  header: string[];
}

/**
 * The controller's own plan for this workspace on the `--state` cluster (what its first pass would
 * do, in order), for --explain. Under node auto-provisioning it starts with the NodeClaims.
 */
function planLines(ws: Workspace, stateObjects: readonly unknown[], base: ClusterFacts, hubModels?: ReadonlyMap<string, HubModelState>): string[] {
  const config = operatorConfigOf(base, DEFAULT_NODE_PROVISIONING_TIMEOUT_MS);
  const objects = (stateObjects as KubernetesObject[]).map((o) =>
    o.kind === 'Node' || o.kind === 'StorageClass' ? o : { ...o, metadata: { ...o.metadata, namespace: o.metadata?.namespace ?? 'default' } },
  );
  const snap = readSnapshot(ws, {
    caches: cachesFromObjects(objects),
    config,
    fieldManager: FIELD_MANAGER,
    now: new Date(),
    provisioningCrdInstalled: () => true,
  });
  const plan = planWorkspace(hubModels ? { ...snap, hubModels } : snap);
  if (plan.failure) return [`plan: stops with ${plan.failure.reason}: ${plan.failure.message}`];
  return ["plan (the operator's first pass on this state):", ...plan.actions.map((a) => `  ${describeAction(a)}`)];
}

function renderOne(path: string, ws: Workspace, facts: ClusterFacts, warn: (line: string) => void, hub?: Decision): Rendered {
  const name = `${workspaceNamespace(ws)}/${ws.metadata.name}`;
  // Resolved once (preset, runtime, GPU facts): validation and the builders read the same value.
  const resolved = resolveFromFacts(ws, facts);
  const issues = validateWorkspace(ws, {
    resolved,
    operation: 'create',
    ...(ws.inference ? { inferenceConfig: inferenceConfigLookup(ws, facts) } : {}),
    ...(ws.tuning ? { tuningConfig: tuningConfigLookup(ws, facts) } : {}),
  });
  const [firstError] = errorsOf(issues);
  if (firstError) throw new CliError(`${path}: workspace ${name}: ${firstError.field}: ${firstError.message}`);
  for (const w of issues) warn(`warning: workspace ${name}: ${w.field}: ${w.message}`);

  const result = ws.tuning ? buildTuning(ws, facts, resolved) : buildWorkspace(ws, facts, resolved);
  if (!result.ok) {
    const [p] = result.problems;
    throw new CliError(`${path}: workspace ${name}: ${p?.field}: ${p?.message}`);
  }
  // The hub's figures follow the model line they sized.
  const decisions = result.decisions.flatMap((d) => (d.topic === 'model' && hub ? [d, hub] : [d]));
  const header = [
    `workspace ${name}: revision ${result.revision}, hash ${result.revisionHash}`,
    ...generationLines(ws, undefined, facts.legacyNames),
    ...formatDecisions(decisions),
  ];
  const objects = 'job' in result.objects ? tuningObjectList(result.objects) : objectList(result.objects);
  const childRefused = printedObjectsProblem(objects, `workspace ${name}`);
  if (childRefused) throw new CliError(`${path}: ${childRefused}`);
  return { ws, objects, header };
}

/**
 * An InferenceSet: the child Workspaces the controller's first pass on the `--state` cluster would
 * create (generateName, so unnamed), and with --explain that pass's plan.
 */
function renderInferenceSet(path: string, is: InferenceSetObject, stateObjects: readonly unknown[], base: ClusterFacts): Rendered {
  const name = `${is.metadata.namespace}/${is.metadata.name}`;
  const objects = (stateObjects as KubernetesObject[]).map((o) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata?.namespace ?? 'default' } }));
  const plan = planInferenceSetOffline(
    is,
    {
      workspaces: objects.filter((o) => o.kind === 'Workspace'),
      controllerRevisions: objects.filter((o) => o.kind === 'ControllerRevision') as unknown as V1ControllerRevision[],
    },
    { byo: base.featureGates.disableNodeAutoProvisioning },
  );
  if (plan.failure) throw new CliError(`${path}: inferenceset ${name}: ${plan.failure.message}`);
  const problem = specProblem({ is, byo: base.featureGates.disableNodeAutoProvisioning });
  if (problem) throw new CliError(`${path}: inferenceset ${name}: ${problem.split('\n').join(': ')}`);
  const creates = plan.actions.flatMap((a) => (a.kind === 'create' && a.type.kind === 'Workspace' ? [a.object] : []));
  const childRefused = printedObjectsProblem(creates, `inferenceset ${name}`);
  if (childRefused) throw new CliError(`${path}: ${childRefused}`);
  const header = [
    `inferenceset ${name}: ${creates.length} child Workspace(s) to create, template hash ${templateHash(is, { byo: base.featureGates.disableNodeAutoProvisioning })}`,
    "plan (the operator's first pass on this state):",
    ...plan.actions.map((a) => `  ${describeAction(a, 'inferenceset')}`),
  ];
  return { ws: is as unknown as Workspace, objects: creates, header };
}

interface HubRead {
  repo: string;
  hubModels: ReadonlyMap<string, HubModelState>;
  /** Where HF_TOKEN came from, for --explain (never the value). */
  tokenSource: string;
}

/** The hub's answer for a workspace naming an id outside the catalog (undefined: it names none). */
async function readHub(ws: Workspace, hub: CliHub, stateObjects: readonly unknown[], legacyNames?: KaitoGeneration): Promise<HubRead | undefined> {
  const preset = ws.tuning ? undefined : inferencePresetOf(ws, undefined, legacyNames);
  if (preset?.kind !== 'resolving') return undefined;
  const { ref, source } = renderToken(ws, stateObjects);
  const key = `${workspaceNamespace(ws)}/${ws.metadata.name}`;
  const hubModels = await hub.settled(key, (models) => hubLookup(ws, preset.name, models, ref));
  return { repo: preset.name, hubModels, tokenSource: source };
}

/**
 * HF_TOKEN for `render`: the workspace's model access Secret when `--state` holds it with the key,
 * else the environment's HF_TOKEN, else anonymous.
 */
function renderToken(ws: Workspace, stateObjects: readonly unknown[], env: NodeJS.ProcessEnv = process.env): { ref: TokenRef; source: string } {
  const ns = workspaceNamespace(ws);
  const name = ws.inference?.preset?.presetOptions?.modelAccessSecret;
  const secret = name
    ? (stateObjects as (KubernetesObject & { data?: Record<string, string>; stringData?: Record<string, string> })[]).find(
        (o) => o.kind === 'Secret' && o.metadata?.name === name && (o.metadata?.namespace ?? 'default') === ns,
      )
    : undefined;
  const encoded = secret?.data?.[HF_TOKEN_KEY];
  const fromState = encoded ? Buffer.from(encoded, 'base64').toString('utf8') : secret?.stringData?.[HF_TOKEN_KEY];
  if (fromState) return { ref: { id: `state:${ns}/${name}`, read: async () => fromState }, source: `HF_TOKEN of Secret ${ns}/${name} (from -f or --state)` };
  const fromEnv = env['HF_TOKEN']?.trim();
  if (fromEnv) return { ref: { id: 'env:HF_TOKEN', read: async () => fromEnv }, source: 'HF_TOKEN from the environment' };
  return { ref: { id: '', read: async () => undefined }, source: 'anonymous (no HF_TOKEN in --state or the environment)' };
}

/** The hub metadata that sized the workspace, for --explain: where from, the weight total, the config.json figures read. */
function hubDecision(read: HubRead, endpoint: string): Decision | undefined {
  const state = read.hubModels.get(read.repo.toLowerCase());
  if (state?.state !== 'ready') return undefined;
  const { facts } = state;
  const files = facts.weightFiles === undefined ? '' : `${facts.weightFiles} weight file(s), `;
  const architectures = Array.isArray(facts.config['architectures']) ? (facts.config['architectures'] as unknown[]).join(', ') : '';
  const figures = sizingInputs(facts.config).map(([key, value]) => `${key} ${value}`);
  return {
    topic: 'huggingface',
    choice: `${endpoint}/${read.repo}`,
    reason:
      `file list: ${files}${facts.weightBytes} bytes (${formatGiB(facts.weightBytes)}${facts.mistralFormat ? ', Mistral format' : ''}); ` +
      `config.json${facts.mistralFormat ? ' (or params.json)' : ''}: architectures ${architectures || 'none named'}` +
      `${figures.length ? `, ${figures.join(', ')}` : ''}; token: ${read.tokenSource}`,
  };
}

export async function render(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        filename: { type: 'string', short: 'f' },
        state: { type: 'string' },
        output: { type: 'string', short: 'o', default: 'yaml' },
        'feature-gates': { type: 'string' },
        'cloud-provider': { type: 'string' },
        explain: { type: 'boolean', default: false },
        [LEGACY_PRESETS_FLAG]: { type: 'string' },
        ...HUB_FLAGS,
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (!values.filename) throw new CliError('render needs -f <workspace.yaml>');
  const output = values.output;
  if (output !== 'yaml' && output !== 'json') throw new CliError(`-o must be yaml or json, got ${JSON.stringify(output)}`);

  let base: ClusterFacts;
  try {
    base = defaultFacts({
      featureGates: parseFeatureGates(values['feature-gates']),
      cloudProvider: resolveCloudProvider(values['cloud-provider']),
      presetRegistry: presetRegistry(),
      releaseNamespace: process.env.RELEASE_NAMESPACE?.trim() || DEFAULT_RELEASE_NAMESPACE,
      legacyNames: parseLegacyPresets(values[LEGACY_PRESETS_FLAG]),
    });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const warnings: string[] = [];
  const { workspaces, inferenceSets, stateObjects } = await readRenderInputs(values.filename, values.state, (line) => warnings.push(line), io.stdin);
  const hub = CliHub.fromFlags(values);
  let read: (HubRead | undefined)[];
  try {
    read = await Promise.all(workspaces.map((ws) => readHub(ws, hub, stateObjects, base.legacyNames)));
  } finally {
    hub.close();
  }
  for (const [i, r] of read.entries()) {
    const failed = hubFailure(r?.hubModels);
    if (failed) throw new CliError(`workspace ${workspaceNamespace(workspaces[i]!)}/${workspaces[i]!.metadata.name}: ${failed.reason}: ${failed.message}`);
  }

  const factsFor = (ws: Workspace, fromHub?: HubRead): ClusterFacts => {
    try {
      // The pods are pinned to the provisioner's nodes as the operator pins them (no --node-provisioner here: from the gate).
      return {
        ...factsFromObjects(stateObjects, workspaceNamespace(ws), base),
        ...podNodePinning(ws, provisionerOf(base)),
        ...(fromHub ? { hubModels: fromHub.hubModels } : {}),
      };
    } catch (err) {
      throw new CliError(`${values.state}: ${(err as Error).message}`);
    }
  };
  const path = inputName(values.filename);
  const rendered = workspaces.map((ws, i) => {
    const fromHub = read[i];
    const one = renderOne(path, ws, factsFor(ws, fromHub), (line) => warnings.push(line), fromHub && hubDecision(fromHub, hub.endpoint));
    return values.explain ? { ...one, header: [...one.header, ...planLines(ws, stateObjects, base, fromHub?.hubModels)] } : one;
  });
  for (const is of inferenceSets) {
    const one = renderInferenceSet(path, is, stateObjects, base);
    // Each child goes through the Workspace checks too (preset, SKU, the objects it would get), as the operator will take it.
    for (const child of childWorkspacesToCheck(one.objects)) {
      try {
        renderOne(path, child, factsFor(child), () => undefined);
      } catch (err) {
        const why = err instanceof CliError ? err.message.slice(path.length + 2) : (err as Error).message;
        throw new CliError(`${path}: inferenceset ${is.metadata.namespace}/${is.metadata.name}: its child ${why}`);
      }
    }
    rendered.push(one);
  }

  // Only now that everything succeeded: nothing reaches stdout on bad input.
  for (const w of warnings) io.stderr(`kaito-ts: ${w}\n`);
  const explanation = values.explain ? rendered.flatMap((r) => r.header) : [];
  const items = rendered.flatMap((r) => r.objects);
  if (output === 'json') {
    for (const line of explanation) io.stderr(`${line}\n`);
    io.stdout(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2)}\n`);
  } else {
    const comments = explanation.map((line) => `# ${line}\n`).join('');
    io.stdout(comments + items.map((o) => `---\n${stringify(o, { lineWidth: 0 })}`).join(''));
  }
  return 0;
}
