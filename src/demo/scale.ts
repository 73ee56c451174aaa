// The InferenceSet step: `kubectl scale` one replica up, the live table until every child serves,
// then back down, the table until the extra child is gone.
import type { InferenceSetObject } from '../controllers/inferenceset/children.js';
import { commandLine, kubectl, scaleArgs, type KubectlTarget } from './kubectl.js';
import { liveUntilReady, sec, type LiveContext } from './live.js';
import { childrenOf, type Row, type Snapshot } from './table.js';

export interface ScaleReport {
  set: string;
  from: number;
  to: number;
  /** The children once all `to` of them were InferenceReady. */
  up: string[];
  /** The children after scaling back, and the ones the scale-down deleted. */
  back: string[];
  deleted: string[];
  /** The table's rows once the set was back at its replicas, every row ready. */
  rows: Row[];
}

const childNames = (snap: Snapshot, set: string): string[] => childrenOf(snap, set).map((ws) => ws.metadata.name ?? '');

/** Names in `before` that `after` no longer has. */
export const goneFrom = (before: string[], after: string[]): string[] => before.filter((n) => !after.includes(n));

export async function scaleUpAndBack(c: LiveContext, target: KubectlTarget, is: InferenceSetObject, say: (line: string) => void): Promise<ScaleReport> {
  const set = is.metadata.name ?? '';
  const from = is.spec.replicas ?? 1;
  const to = from + 1;
  const scale = async (n: number): Promise<void> => {
    const args = scaleArgs(c.namespace, set, n);
    say(`$ ${commandLine(args)}`);
    say(await kubectl(target, args, c.signal));
  };

  await scale(to);
  const up = await liveUntilReady(c, `kubectl scale --replicas=${to}`);
  const upNames = childNames(up.snap, set);
  say(`inferenceset/${set}: ${upNames.length}/${to} child Workspaces InferenceReady (${upNames.join(', ')}), ${sec(up.ms)} after kubectl scale`);
  say('');

  await scale(from);
  const back = await liveUntilReady(c, `kubectl scale --replicas=${from}`);
  const backNames = childNames(back.snap, set);
  const deleted = goneFrom(upNames, backNames);
  say(
    `inferenceset/${set}: back to ${backNames.length}/${from} (${backNames.join(', ')}); ${deleted.join(', ') || 'no child'} deleted, ${sec(back.ms)} after kubectl scale`,
  );
  return { set, from, to, up: upNames, back: backNames, deleted, rows: back.rows };
}
