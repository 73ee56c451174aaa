// Which KAITO release a legacy short preset name (`phi-4-mini-instruct`) is rendered as: KAITO v0.12.0
// maps 25 of them to catalog entries and refuses the rest; KAITO v0.8.0 serves them from its own
// presets. One operator setting (`--legacy-presets`, also on `render` and `diff`, chart value
// `legacyPresets`) picks the generation new workloads get; a live workload keeps its own until its
// workspace's spec changes (docs/api.md, "Behaviours by KAITO release").

/** A KAITO release whose rendering of legacy names kaito-ts reproduces. */
export type KaitoGeneration = 'v0.8' | 'v0.12';

export const KAITO_GENERATIONS: readonly KaitoGeneration[] = ['v0.12', 'v0.8'];
export const LEGACY_PRESETS_FLAG = 'legacy-presets';
export const DEFAULT_LEGACY_PRESETS: KaitoGeneration = 'v0.12';

export function isKaitoGeneration(value: string): value is KaitoGeneration {
  return (KAITO_GENERATIONS as readonly string[]).includes(value);
}

/** `--legacy-presets`: absent gives the default; anything but v0.12 or v0.8 throws a one-line reason. */
export function parseLegacyPresets(value: string | undefined): KaitoGeneration {
  if (value === undefined) return DEFAULT_LEGACY_PRESETS;
  const v = value.trim();
  if (!isKaitoGeneration(v)) throw new Error(`--${LEGACY_PRESETS_FLAG} must be one of ${KAITO_GENERATIONS.join(', ')}, got ${JSON.stringify(value)}`);
  return v;
}

/** `KAITO v0.8.0` / `KAITO v0.12.0`, as the docs and messages name the releases. */
export function releaseName(g: KaitoGeneration): string {
  return `KAITO ${g}.0`;
}
