// One sort order for names: UTF-16 code units, as Go's sort.Strings orders KAITO's. Kubernetes names
// are lowercase ASCII, where it agrees with localeCompare; localeCompare would also map ICU's
// collation tables into the process (about 2 MiB resident, docs/benchmarks.md "Memory at N = 200").

export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Objects by `metadata.name`, a missing name first. */
export const byMetadataName = (a: { metadata?: { name?: string } }, b: { metadata?: { name?: string } }): number =>
  compareText(a.metadata?.name ?? '', b.metadata?.name ?? '');
