// V8 flags the operator sets on itself at start. `--optimize-for-size` cannot go in NODE_OPTIONS
// (Node refuses to start), where the chart's and the image's flags go, so the launcher sets it
// through v8.setFlagsFromString before any cache fills. V8 reads it at each heap-growth decision:
// the old generation then grows by smaller steps and is collected sooner. Measured in
// docs/benchmarks.md ("Memory").

const OPTIMIZE_FOR_SIZE = /^--(no-)?optimize[-_]for[-_]size$/;

/** The flags to set, given node's own arguments: none that the command line already decides. */
export function runtimeV8Flags(execArgv: readonly string[]): string[] {
  return execArgv.some((a) => OPTIMIZE_FOR_SIZE.test(a)) ? [] : ['--optimize-for-size'];
}
