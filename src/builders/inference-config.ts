// Which ConfigMap the inference pod mounts at /mnt/config (spec §5.12): the user's `inference.config`,
// else `inference-params-template` in the workspace namespace, copied from the release namespace when
// missing there. kaito-ts difference: without a template in the release namespace, it copies a built-in
// default with the chart's content instead of failing, so `render` on an empty cluster still works.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE, INFERENCE_CONFIG_KEY } from '../api/labels.js';
import type { Decision, Workspace } from '../api/types.js';
import { findConfigMap, type ClusterFacts } from './facts.js';
import { workspaceNamespace } from './meta.js';
import { problem, type Problem } from './problems.js';

/** The chart's default `inference_config.yaml` (KAITO-only keys, then the `vllm:` flags the server appends). */
export const BUILTIN_INFERENCE_CONFIG = [
  'max_probe_steps: 6',
  'kv_cache_cpu_memory_utilization: 0.5',
  'vllm:',
  '  cpu-offload-gb: 0',
  '  swap-space: 4',
  '',
].join('\n');

export interface InferenceConfig {
  /** ConfigMap name mounted as `config-volume`. */
  name: string;
  /** Its `inference_config.yaml` (undefined when the key is missing). */
  content?: string;
  /** A copy to create in the workspace namespace, when the default is not there yet. */
  copy?: V1ConfigMap;
  decision: Decision;
}

/** On the ConfigMap copies kaito-ts creates: why and from where, for the decision shown later. */
export const COPIED_FROM_ANNOTATION = 'kaito-ts/copied-from';

export type InferenceConfigResult = ({ ok: true } & InferenceConfig) | { ok: false; problem: Problem };

export function resolveInferenceConfig(ws: Workspace, facts: ClusterFacts): InferenceConfigResult {
  const ns = workspaceNamespace(ws);
  const userConfig = ws.inference?.config;
  if (userConfig) {
    const cm = findConfigMap(facts, ns, userConfig);
    if (!cm) {
      return {
        ok: false,
        problem: problem('inference.config', 'ConfigMapNotFound', `user specified ConfigMap ${userConfig} not found in namespace ${ns}`),
      };
    }
    return {
      ok: true,
      name: userConfig,
      content: cm.data?.[INFERENCE_CONFIG_KEY],
      decision: { topic: 'inferenceConfig', choice: userConfig, reason: 'inference.config names it' },
    };
  }
  const name = DEFAULT_INFERENCE_CONFIG_TEMPLATE;
  const local = findConfigMap(facts, ns, name);
  if (local) {
    return {
      ok: true,
      name,
      content: local.data?.[INFERENCE_CONFIG_KEY],
      // A copy we made says where it came from, so the reason stays the one given when it was created.
      decision: {
        topic: 'inferenceConfig',
        choice: name,
        reason: local.metadata?.annotations?.[COPIED_FROM_ANNOTATION] ?? `default, already present in namespace ${ns}`,
      },
    };
  }
  const { copy, reason } = copyOfDefault(name, ns, facts, { [INFERENCE_CONFIG_KEY]: BUILTIN_INFERENCE_CONFIG });
  return {
    ok: true,
    name,
    content: copy.data?.[INFERENCE_CONFIG_KEY],
    copy,
    decision: {
      topic: 'inferenceConfig',
      choice: name,
      reason,
    },
  };
}

/** What validation needs to know about the ConfigMap the pod would mount (W37: the copy, not the release template). */
export function inferenceConfigLookup(ws: Workspace, facts: ClusterFacts): { name: string; namespace: string; found: boolean; data?: Record<string, string> } {
  const resolved = resolveInferenceConfig(ws, facts);
  const namespace = workspaceNamespace(ws);
  if (!resolved.ok) return { name: ws.inference?.config ?? '', namespace, found: false };
  return { name: resolved.name, namespace, found: true, data: resolved.content === undefined ? {} : { [INFERENCE_CONFIG_KEY]: resolved.content } };
}

/**
 * The copy of default ConfigMap `name` to create in namespace `ns`: the release namespace's template,
 * or `builtin` when there is none. KAITO copies the template's metadata as-is minus resourceVersion/uid;
 * server-set fields go too.
 */
export function copyOfDefault(name: string, ns: string, facts: ClusterFacts, builtin: Record<string, string>): { copy: V1ConfigMap; reason: string } {
  const template = findConfigMap(facts, facts.releaseNamespace, name);
  const { labels, annotations } = template?.metadata ?? {};
  const reason = template
    ? `default, copied from namespace ${facts.releaseNamespace}`
    : `default, not found in namespace ${facts.releaseNamespace}: created from kaito-ts's built-in copy of the chart template`;
  const copy: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    // The template is a cached (frozen) object: its maps are copied into the new one, never shared.
    metadata: { name, namespace: ns, ...(labels ? { labels: { ...labels } } : {}), annotations: { ...annotations, [COPIED_FROM_ANNOTATION]: reason } },
    data: { ...(template?.data ?? builtin) },
  };
  return { copy, reason };
}
