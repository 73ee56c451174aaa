// Entry point of the `kaito-ts` CLI: dispatches to one module per command, loaded on demand
// so that `kaito-ts crd` never pays for the controller runtime, and so that the operator image can
// leave out the local commands' modules (src/cli/image-files.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, processIO, type CliIO, type Command } from './command-io.js';

/** `local`: drives the local simulated cluster; only a checkout or the npm package has its modules, not the image. */
const commands: Record<string, { summary: string; load: () => Promise<Command>; local?: true }> = {
  render: { summary: 'print what the operator would apply for a workspace', load: async () => (await import('./commands/render.js')).render },
  diff: { summary: 'show what the operator would change in the live cluster, without writing', load: async () => (await import('./commands/diff.js')).diff },
  check: {
    summary: 'list what kaito-ts would not serve as KAITO does, or a takeover would lose (read-only)',
    load: async () => (await import('./commands/check.js')).check,
  },
  'helm-keep': {
    summary: "helm post-renderer for a takeover: marks KAITO's CRDs, ConfigMaps and StorageClass keep",
    load: async () => (await import('./commands/helm-keep.js')).helmKeep,
  },
  crd: { summary: 'print the Workspace CustomResourceDefinition', load: async () => (await import('./commands/crd.js')).crd },
  run: { summary: 'run the Workspace operator', load: async () => (await import('./commands/run.js')).run },
  simcluster: {
    summary: 'manage the local simulated GPU cluster (up|down|status|env)',
    load: async () => (await import('./commands/simcluster.js')).simcluster,
    local: true,
  },
  demo: { summary: 'run the operator on the local cluster with sample workspaces', load: async () => (await import('./commands/demo.js')).demo, local: true },
};

export function localCommands(): string[] {
  return Object.keys(commands).filter((name) => commands[name]!.local);
}

/** A local command whose module this installation does not have (the operator image). */
function absentLocalCommand(name: string, err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return commands[name]?.local === true && e?.code === 'ERR_MODULE_NOT_FOUND' && (e.message ?? '').includes(`/commands/${name}.js`);
}

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: kaito-ts <command> [flags]\n\nCommands:\n${lines.join('\n')}\n`;
}

/** package.json sits three levels above dist/src/cli, in the checkout and in the image. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === 'version') {
    io.stdout(`kaito-ts ${packageVersion()}\n`);
    return 0;
  }
  const entry = commands[name];
  try {
    if (!entry) throw new CliError(`unknown command "${name}"; run "kaito-ts --help" for the list`);
    const command = await entry.load().catch((err: unknown) => {
      if (absentLocalCommand(name, err))
        throw new CliError(`"${name}" is not in this installation (the operator image has no local cluster); run it from a checkout or the npm package`);
      throw err;
    });
    return await command(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr(`kaito-ts: ${err.message}\n`);
      return err.exitCode;
    }
    // Unexpected failure: still one line, no stack trace (set KAITO_TS_DEBUG=1 to see it).
    io.stderr(`kaito-ts: ${err instanceof Error ? err.message : String(err)}\n`);
    if (process.env.KAITO_TS_DEBUG) io.stderr(`${(err as Error).stack ?? ''}\n`);
    return 1;
  }
}
