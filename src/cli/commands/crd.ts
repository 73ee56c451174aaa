// `kaito-ts crd`: print a kaito.sh CRD as YAML (apply it with `kubectl apply -f -`).
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { workspaceCrd } from '../../api/crd.js';
import { inferenceSetCrd } from '../../api/inferenceset-crd.js';
import { CliError, type CliIO } from '../command-io.js';

const KINDS = { workspace: workspaceCrd, inferenceset: inferenceSetCrd } as const;
type CrdKind = keyof typeof KINDS;

/** The exact text of config/crd/kaito.sh_workspaces.yaml (or kaito.sh_inferencesets.yaml). */
export function renderCrdYaml(kind: CrdKind = 'workspace'): string {
  return `---\n${stringify(KINDS[kind](), { lineWidth: 0 })}`;
}

export async function crd(args: string[], io: CliIO): Promise<number> {
  let kind: CrdKind = 'workspace';
  try {
    const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' }, kind: { type: 'string' } }, strict: true, allowPositionals: false });
    if (values.help) {
      io.stdout('Usage: kaito-ts crd [--kind workspace|inferenceset]\n\nPrints a kaito.sh CustomResourceDefinition as YAML (default: Workspace).\n');
      return 0;
    }
    if (values.kind !== undefined) {
      if (!(values.kind in KINDS)) throw new Error(`--kind must be one of ${Object.keys(KINDS).join(', ')}, not ${values.kind}`);
      kind = values.kind as CrdKind;
    }
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  io.stdout(renderCrdYaml(kind));
  return 0;
}
