// Answers derived from a frozen list, kept per list. The caches hand every pass the same frozen array
// until an object of the kind changes, so what every pass derives from all nodes is derived once per
// change. A list that is not frozen may still change and is answered afresh.

/** `derive`, kept per frozen list (weakly: a list no cache holds any more takes its answer with it). */
export function perFrozenList<L extends readonly unknown[], T>(derive: (list: L) => T): (list: L) => T {
  const kept = new WeakMap<L, T>();
  return (list) => {
    if (!Object.isFrozen(list)) return derive(list);
    if (kept.has(list)) return kept.get(list) as T;
    const answer = derive(list);
    kept.set(list, answer);
    return answer;
  };
}

interface Named {
  metadata?: { name?: string };
}

const byName = perFrozenList((list: readonly Named[]) => {
  const out = new Map<string, Named>();
  for (const o of list) if (!out.has(o.metadata?.name ?? '')) out.set(o.metadata?.name ?? '', o);
  return out;
});

/** The object named `name` in `list` (the first, as a search would find it): indexed once per frozen list, searched in any other. */
export function objectNamed<T extends Named>(list: readonly T[], name: string | undefined): T | undefined {
  if (name === undefined) return undefined;
  if (!Object.isFrozen(list)) return list.find((o) => (o.metadata?.name ?? '') === name);
  return byName(list).get(name) as T | undefined;
}
