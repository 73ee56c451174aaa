// "Would applying this change anything?" — answered from the cache, so a reconcile with nothing
// to do sends no request at all. Desired is what we apply with server-side apply; live may carry
// more (server defaults, other managers' fields), so the test is containment, not equality.
// Lists of objects that carry a `name` (containers, volumes, env, ports) are matched by name,
// the way SSA merges them, so a user's sidecar does not count as drift.

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyedByName(list: readonly Json[]): boolean {
  return list.length > 0 && list.every((e) => isObject(e) && typeof e.name === 'string');
}

/** True when every field set in `desired` has the same value in `live`. */
export function containedIn(desired: Json, live: Json): boolean {
  if (desired === undefined || desired === null) return true;
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return desired.length === 0 && live === undefined;
    if (keyedByName(desired)) {
      return desired.every((d) => {
        const name = (d as Record<string, Json>).name;
        return containedIn(
          d,
          live.find((l) => isObject(l) && l.name === name),
        );
      });
    }
    return desired.length === live.length && desired.every((d, i) => containedIn(d, live[i]));
  }
  if (isObject(desired)) {
    if (!isObject(live)) return Object.values(desired).every((v) => v === undefined);
    return Object.entries(desired).every(([k, v]) => containedIn(v, live[k]));
  }
  if (desired instanceof Date) return live !== undefined && new Date(live as string).getTime() === desired.getTime();
  // Quantities and ports may come back in another spelling ("1" vs 1); compare as strings.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects were handled above; scalars only
  return String(desired) === String(live);
}

/** Normalises a typed object (Dates, undefined) to what the API server would return. */
export function toJson<T>(obj: T): Json {
  return JSON.parse(JSON.stringify(obj)) as Json;
}

/** True when a server-side apply of `desired` onto `live` would change something. */
export function needsApply(desired: Json, live: Json): boolean {
  return live === undefined || !containedIn(toJson(desired), toJson(live));
}
