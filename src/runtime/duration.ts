// The one duration syntax of every flag and environment knob: Go-style units, one unit.

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** `1500ms`, `1.2s`, `10m`, `1h`, `0`; a bare number is seconds. Milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m?.[1]) throw new Error(`invalid duration "${text}": use e.g. 500ms, 30s, 10m`);
  return Math.round(Number(m[1]) * UNIT_MS[(m[2] ?? 's') as keyof typeof UNIT_MS]);
}

/** A flag's duration that must be above zero; `fallbackMs` when the flag is absent. */
export function positiveDurationFlag(flag: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    ms = 0;
  }
  if (ms <= 0) throw new Error(`--${flag} must be a positive duration such as 90s, 30m or 2h, got "${value}"`);
  return ms;
}

/** The shortest exact spelling: `10m`, `2s`, `1200ms`. */
export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** An annotation holding a positive duration: its value, or `fallbackMs` with a note saying why. */
export function positiveDurationAnnotation(annotations: Readonly<Record<string, string>>, key: string, fallbackMs: number): { ms: number; note?: string } {
  const text = annotations[key];
  if (text === undefined) return { ms: fallbackMs };
  let ms = 0;
  try {
    ms = parseDuration(text);
  } catch {
    ms = 0;
  }
  return ms > 0 ? { ms } : { ms: fallbackMs, note: `${key} ${JSON.stringify(text)} is not a positive duration: ${formatDuration(fallbackMs)}` };
}
