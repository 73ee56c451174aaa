// The scheduler's "0/N nodes are available: …" message counts every node of the cluster, so it
// changes whenever any node comes or goes. Copied as is into a workspace's status it would rewrite
// the status (and repeat the event) on every unrelated node change. This keeps what concerns the
// pod: the reasons of nodes that passed the cordon, taint and affinity filters, with their counts.

/** Filters the scheduler runs before the resource checks: they sort out nodes, mostly unrelated ones. */
const GATES: readonly RegExp[] = [/didn't match Pod's node affinity\/selector/, /had untolerated taint/, /were unschedulable/];

interface Tally {
  count: number;
  text: string;
}

function parseTallies(list: string): Tally[] | undefined {
  const tallies: Tally[] = [];
  for (const item of list.split(', ')) {
    const m = /^(\d+) (.+)$/.exec(item.trim());
    if (!m) return undefined;
    tallies.push({ count: Number(m[1]), text: m[2]! });
  }
  return tallies;
}

/**
 * The part of a PodScheduled=False message that stays the same while only other nodes change: the
 * reasons of the nodes the pod could run on, or one fixed sentence when the gates excluded every
 * node. A message in another shape is returned unchanged.
 */
export function stableSchedulerMessage(message: string): string {
  const m = /^0\/\d+ nodes are available: (.*?)\.(?: |$)/.exec(message);
  const tallies = m && parseTallies(m[1]!);
  if (!tallies) return message;
  const relevant = tallies.filter((t) => !GATES.some((g) => g.test(t.text)));
  if (relevant.length > 0) return relevant.map((t) => `${t.count} ${t.text}`).join(', ');
  return tallies.some((t) => GATES[0]!.test(t.text))
    ? "no node that matches the pod's node affinity/selector can take it (none match, or they are tainted or cordoned)"
    : 'every node is tainted or cordoned against the pod';
}
