// The objects a plan's applies and creates write, as the API server then holds them: with UIDs, owned
// by `manager` (kaito-ts, or another controller that wrote the same objects). Tests that converge a workspace feed them back as the next pass's cluster.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Plan } from '../../../src/controllers/shared/actions.js';

export function writtenObjects(plan: Plan, manager = 'kaito-ts'): KubernetesObject[] {
  return plan.actions.flatMap((a) =>
    a.kind === 'apply' || a.kind === 'create'
      ? [
          {
            ...a.object,
            kind: a.type.kind,
            metadata: { ...a.object.metadata, uid: `uid-${a.object.metadata?.name}`, managedFields: [{ manager }] },
          },
        ]
      : [],
  );
}
