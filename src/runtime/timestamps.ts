// RFC 3339 timestamps in UTC, put together from the UTC getters: Date.prototype.toISOString maps part
// of ICU's data into the process (about 0.6 MiB resident for good, docs/benchmarks.md "Memory at
// N = 200"), the getters do not. Years 0–9999, as every time the operator writes.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2006-01-02T15:04:05`, the part both forms share. */
function dateTime(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `2006-01-02T15:04:05.000Z`: what toISOString gives. */
export function isoMillis(at: Date | number): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  return `${dateTime(d)}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

/** `2006-01-02T15:04:05Z`: metav1.Time, whole seconds. */
export function isoSeconds(at: Date | number): string {
  return `${dateTime(typeof at === 'number' ? new Date(at) : at)}Z`;
}
