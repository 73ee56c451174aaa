// InferenceSets in e2e tests: apply one on a test's node pool, list its child Workspaces, and wait
// until exactly N of them are Ready and the InferenceSet's status says so.
import type { KubernetesObject } from '@kubernetes/client-node';
import { LABEL_INFERENCESET_CREATED_BY } from '../../../src/api/labels.js';
import type { InferenceSet } from '../../../src/api/inferenceset-types.js';
import { kubectl, waitFor } from '../harness.js';
import { conditionOf, getOne, listWorkspaces } from './operator.js';

export type IS = InferenceSet & KubernetesObject;

export async function applyInferenceSet(
  ns: string,
  name: string,
  replicas: number,
  selector: { matchLabels: Record<string, string> },
  more: { templateAnnotations?: Record<string, string>; nodeCountLimit?: number; instanceType?: string } = {},
): Promise<void> {
  const body = {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'InferenceSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas,
      ...(more.nodeCountLimit ? { nodeCountLimit: more.nodeCountLimit } : {}),
      labelSelector: selector,
      template: {
        // Node auto-provisioning: the SKU each child's NodeClaim asks for.
        ...(more.instanceType ? { resource: { instanceType: more.instanceType } } : {}),
        metadata: { labels: { team: 'e2e' }, ...(more.templateAnnotations ? { annotations: more.templateAnnotations } : {}) },
        inference: { preset: { name: 'phi-3-mini-4k-instruct' } },
      },
    },
  };
  await kubectl(['apply', '--server-side', '--field-manager=e2e', '-f', '-'], { namespace: ns, input: JSON.stringify(body) });
}

export const members = async (ns: string, name: string) =>
  (await listWorkspaces(ns)).filter((ws) => ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY] === name);
export const succeeded = (ws: Awaited<ReturnType<typeof members>>[number]) => conditionOf(ws, 'WorkspaceSucceeded')?.status === 'True';

export async function waitReplicas(ns: string, name: string, n: number, timeoutMs = 120_000): Promise<IS> {
  return waitFor(
    `${name}: ${n} Ready children and nothing else`,
    async () => {
      const all = await members(ns, name);
      const is = await getOne<IS>(ns, 'inferenceset', name);
      const ok = all.length === n && all.filter(succeeded).length === n && is?.status?.readyReplicas === n;
      return ok ? is : undefined;
    },
    { timeoutMs },
  );
}
