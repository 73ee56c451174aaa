// A child Workspace of InferenceSet `x` in namespace `ns`, as the caches hold it (shared by the InferenceSet tests).
import type { ChildWorkspace } from '../../../src/controllers/inferenceset/children.js';
import type { WorkspaceCondition, WorkspaceStatus } from '../../../src/api/types.js';

export function childFixture(
  name: string,
  o: { labels?: Record<string, string>; annotations?: Record<string, string>; metadata?: Partial<ChildWorkspace['metadata']>; status?: WorkspaceStatus } = {},
): ChildWorkspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: '1',
      labels: o.labels ?? { 'inferenceset.kaito.sh/created-by': 'x' },
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...o.metadata,
    },
    resource: { labelSelector: { matchLabels: { pool: 'a' } } },
    status: o.status ?? {},
  };
}

/** A `WorkspaceSucceeded` condition (what readyReplicas counts). */
export const succeededCondition = (ready: boolean, at: string): WorkspaceCondition => ({
  type: 'WorkspaceSucceeded',
  status: ready ? 'True' : 'False',
  reason: 'r',
  message: 'm',
  lastTransitionTime: at,
});
