// `kaito-ts crd`: print the Workspace CRD as YAML (apply it with `kubectl apply -f -`).
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { workspaceCrd } from '../../api/crd.js';
import { CliError, type CliIO } from '../command-io.js';

/** The exact text of config/crd/kaito.sh_workspaces.yaml. */
export function renderCrdYaml(): string {
  return `---\n${stringify(workspaceCrd(), { lineWidth: 0 })}`;
}

export async function crd(args: string[], io: CliIO): Promise<number> {
  try {
    const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    if (values.help) {
      io.stdout('Usage: kaito-ts crd\n\nPrints the kaito.sh Workspace CustomResourceDefinition as YAML.\n');
      return 0;
    }
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  io.stdout(renderCrdYaml());
  return 0;
}
