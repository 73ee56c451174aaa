// The seeded generator of odd and invalid Workspaces: the fuzz test applies its output to a cluster with
// the operator running, the render corpus test compares render's answers on it with the API server's.

import { prng } from './prng.js';

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const container = { name: 'c', image: 'nginx:1.27' };
type Body = Record<string, unknown>;
type Shape = (rng: Rng, sel: Body) => { spec: Body; name?: string };

const template = (spec: Body, extra: Body = {}): Body => ({ inference: { template: { spec } }, ...extra });
const preset = (name: string, options: Body = {}): Body => ({ inference: { preset: { name, ...options } } });

/** Odd, valid or invalid shapes; most are bad input on purpose. */
export const SHAPES: Record<string, Shape> = {
  goodTemplate: (rng, sel) => ({ spec: { resource: { labelSelector: sel, count: pick(rng, [1, 1, 2]) }, ...template({ containers: [container] }) } }),
  oddLabels: (rng, sel) => ({
    spec: {
      resource: { labelSelector: sel },
      ...template({ containers: [{ ...container, env: [{ name: 'X', value: 'ü✓'.repeat(1 + Math.floor(rng() * 50)) }] }] }),
    },
  }),
  countPastNodes: (rng, sel) => ({ spec: { resource: { labelSelector: sel, count: 2 + Math.floor(rng() * 250) }, ...template({ containers: [container] }) } }),
  unknownTemplateField: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...template({ containers: [{ ...container, warmup: true }] }) } }),
  restartNever: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...template({ restartPolicy: 'Never', containers: [container] }) } }),
  noImage: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...template({ containers: [{ name: 'c' }] }) } }),
  noContainers: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...template({ containers: [] }) } }),
  twinContainers: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...template({ containers: [container, container] }) } }),
  badGpuQuantity: (rng, sel) => ({
    spec: {
      resource: { labelSelector: sel },
      ...template({ containers: [{ ...container, resources: { limits: { 'nvidia.com/gpu': pick(rng, ['abc', '-1', '1.5x']) } } }] }),
    },
  }),
  badPort: (rng, sel) => ({
    spec: { resource: { labelSelector: sel }, ...template({ containers: [{ ...container, ports: [{ containerPort: pick(rng, [0, 70000, -5]) }] }] }) },
  }),
  typoPreset: (rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...preset(pick(rng, ['phi-4-mini-instruc', 'llama-9', 'falcon-7b-instruct-x'])) } }),
  tooBig: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...preset('qwen2.5-coder-32b-instruct') } }),
  // A preset (refused before any pod): an unschedulable template pod's status quotes the scheduler, whose
  // message counts the cluster's nodes, which other engineers' pools change (docs/e2e.md).
  noMatchingNodes: (rng) => ({
    spec: { resource: { labelSelector: { matchLabels: { 'kaito.sh/sim-pool': `nowhere-${Math.floor(rng() * 1e6)}` } } }, ...preset('phi-3-mini-4k-instruct') },
  }),
  missingConfig: (_rng, sel) => ({
    spec: { resource: { labelSelector: sel }, inference: { preset: { name: 'phi-3-mini-4k-instruct' }, config: 'no-such-config' } },
  }),
  missingSecret: (_rng, sel) => ({
    spec: { resource: { labelSelector: sel }, ...preset('llama-3.1-8b-instruct', { presetOptions: { modelAccessSecret: 'no-such-secret' } }) },
  }),
  secretRequired: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, ...preset('llama-3.1-8b-instruct') } }),
  unknownInstanceType: (_rng, sel) => ({
    spec: { resource: { labelSelector: sel, instanceType: 'Standard_Nothing_v9' }, ...preset('phi-3-mini-4k-instruct') },
  }),
  // Refused by the CRD (schema and CEL).
  nameTooLong: (rng, sel) => ({
    name: `l${'o'.repeat(52 + Math.floor(rng() * 10))}`,
    spec: { resource: { labelSelector: sel }, ...template({ containers: [container] }) },
  }),
  badName: (rng, sel) => ({
    name: pick(rng, ['Upper', 'dot.ted', '-dash', 'under_score']),
    spec: { resource: { labelSelector: sel }, ...template({ containers: [container] }) },
  }),
  countOutOfRange: (rng, sel) => ({
    spec: { resource: { labelSelector: sel, count: pick(rng, [0, -1, 257, 2147483647, 1e12]) }, ...template({ containers: [container] }) },
  }),
  presetAndTemplate: (_rng, sel) => ({
    spec: { resource: { labelSelector: sel }, inference: { preset: { name: 'phi-3-mini-4k-instruct' }, template: { spec: { containers: [container] } } } },
  }),
  noInference: (_rng, sel) => ({ spec: { resource: { labelSelector: sel }, inference: {} } }),
  twinAdapters: (_rng, sel) => ({
    spec: {
      resource: { labelSelector: sel },
      inference: { preset: { name: 'phi-3-mini-4k-instruct' }, adapters: [{ source: { name: 'a', image: 'x/a' } }, { source: { name: 'a', image: 'x/b' } }] },
    },
  }),
  wrongTypes: (rng, sel) => ({ spec: { resource: { labelSelector: sel, count: pick(rng, ['two', true, [1]]) }, ...template({ containers: [container] }) } }),
};

export function generate(seed: number, count: number, sel: Body): { shape: string; name: string; body: Body }[] {
  const rng = prng(seed);
  const names = Object.keys(SHAPES);
  return Array.from({ length: count }, (_, i) => {
    const shape = pick(rng, names);
    const { spec, name: odd } = SHAPES[shape]!(rng, sel);
    // Odd names stay invalid with the index appended (upper case, dots, a leading dash, > 52 characters).
    const name = odd ? `${odd}${i}` : `f${i}-${shape.toLowerCase()}`.slice(0, 52);
    return { shape, name, body: { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name }, ...spec } };
  });
}
