// Fault injection on the PRIVATE cluster of support/private-cluster.ts: SIGKILL a control-plane
// component and wait for the supervisor to bring it back; apply many workspaces in one request.
import { layoutFor, pidPath } from '../../../src/simcluster/layout.js';
import { components, type ComponentName } from '../../../src/simcluster/components.js';
import { componentHealthy } from '../../../src/simcluster/health.js';
import { isOurProcess, readPid } from '../../../src/simcluster/process.js';
import { readSupervisorState, type RestartRecord } from '../../../src/simcluster/supervisor/state.js';
import { kubectl, waitFor } from '../harness.js';
import type { NodePool } from '../harness.js';
import { selectorFor } from './operator.js';

export interface Revived {
  oldPid: number;
  newPid: number;
  /** SIGKILL → the new process answers its health probe. */
  seconds: number;
  record: RestartRecord;
}

/** SIGKILLs `name` and waits until the supervisor's new process serves; refuses the shared cluster. */
export async function killAndAwaitRestart(name: ComponentName, timeoutMs = 60_000): Promise<Revived> {
  const l = layoutFor();
  if (!l.stateDir.includes('kaito-ts-faults-')) throw new Error(`refusing to kill ${name} of ${l.stateDir}: not a private fault cluster`);
  const c = components(l).find((x) => x.name === name);
  const oldPid = readPid(pidPath(l, name));
  if (!c || oldPid === undefined || !isOurProcess(oldPid, c.binary, c.script)) throw new Error(`${name} is not running in ${l.stateDir}`);
  const t0 = Date.now();
  process.kill(oldPid, 'SIGKILL');
  const newPid = await waitFor(
    `the supervisor to restart ${name}`,
    async () => {
      const pid = readPid(pidPath(l, name));
      return pid !== undefined && pid !== oldPid && isOurProcess(pid, c.binary, c.script) && (await componentHealthy(l, c)) ? pid : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
  const seconds = (Date.now() - t0) / 1000;
  const record = readSupervisorState(l.supervisorStatePath)?.components[name]?.last;
  if (record?.newPid !== newPid) throw new Error(`supervisor.json does not record the restart of ${name} as pid ${newPid}: ${JSON.stringify(record)}`);
  return { oldPid, newPid, seconds, record };
}

export function presetWorkspace(name: string, p: NodePool): Record<string, unknown> {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name },
    resource: { labelSelector: selectorFor(p) },
    inference: { preset: { name: 'phi-4-mini-instruct' } },
  };
}

/** One `kubectl apply` for all of them (a List). */
export async function applyAll(ns: string, items: Record<string, unknown>[]): Promise<void> {
  await kubectl(['apply', '-f', '-'], { namespace: ns, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
}

export const seconds = (since: number): number => Math.round((Date.now() - since) / 100) / 10;
