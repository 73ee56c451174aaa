// The live table: one snapshot a second, redrawn (or appended) until every row is ready, the deadline
// passes, or Ctrl-C. Each step of the demo (first readiness, each scale) is one such wait.
import type { KubeClient } from '../runtime/client.js';
import { snapshot } from './cluster.js';
import type { Samples } from './samples.js';
import { LiveBlock } from './screen.js';
import { allReady, formatRows, notReadySummary, rowsOf, workspaceRows, type Row, type Snapshot } from './table.js';
import { TimedOut, waitUntil } from './wait.js';

export interface LiveContext {
  client: KubeClient;
  namespace: string;
  samples: Samples;
  legacyNames: ReadonlySet<string>;
  /** Epoch ms; the same deadline for every step. */
  deadline: number;
  timeoutSeconds: number;
  signal: AbortSignal;
  out: (text: string) => void;
  tty: boolean;
  columns?: number;
}

export const sec = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** Shows the table until `allReady`; resolves with the last snapshot, its rows and how long it took. */
export async function liveUntilReady(c: LiveContext, label: string): Promise<{ snap: Snapshot; rows: Row[]; ms: number }> {
  const screen = new LiveBlock({ write: c.out, tty: c.tty, ...(c.columns !== undefined ? { columns: c.columns } : {}) });
  const t0 = Date.now();
  const expected = { workspaces: c.samples.workspaces.length, inferenceSets: c.samples.inferenceSets.length };
  let rows: Row[] = [];
  const done = await waitUntil(
    label,
    c.deadline,
    async () => {
      const snap = await snapshot(c.client, c.namespace);
      rows = rowsOf(snap, c.legacyNames);
      const ws = workspaceRows(rows);
      screen.show(`${c.namespace}: ${ws.filter((r) => r.ready).length}/${ws.length} InferenceReady, ${sec(Date.now() - t0)} since ${label}`, formatRows(rows));
      return allReady(rows, expected) ? { snap, rows } : undefined;
    },
    c.signal,
    1000,
  ).catch((err: unknown) => {
    if (err instanceof TimedOut) throw new TimedOut(`timed out after ${c.timeoutSeconds}s: ${notReadySummary(rows)}`);
    throw err;
  });
  screen.detach();
  return { ...done, ms: Date.now() - t0 };
}
