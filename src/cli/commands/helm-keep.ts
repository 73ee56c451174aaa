// `kaito-ts helm-keep`: a helm post-renderer for the takeover (docs/takeover.md, step a). Reads the
// manifests helm rendered for KAITO's release on stdin and writes them back with every kaito.sh CRD,
// KAITO's ConfigMaps and the NVMe StorageClass marked `helm.sh/resource-policy: keep`, so that a later
// `helm uninstall` of that release leaves them (Helm reads the mark from the release, not the cluster).
import { parseAllDocuments, stringify } from 'yaml';
import type { KubernetesObject } from '@kubernetes/client-node';
import { markKept } from '../../diff/takeover-check.js';
import { CliError, type CliIO } from '../command-io.js';

const USAGE = `Usage: helm upgrade RELEASE CHART --reuse-values --post-renderer kaito-ts --post-renderer-args helm-keep

Reads helm's rendered manifests on stdin; writes them on stdout with every kaito.sh CRD, the ConfigMaps
inference-params-template, lora-params-template, qlora-params-template and the StorageClass
kaito-local-nvme-disk annotated helm.sh/resource-policy=keep. Nothing else changes.
Exit status: 0, or 2 when stdin is not YAML.
`;

async function readStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

export function keepManifests(text: string): string {
  const docs = parseAllDocuments(text);
  const objects: KubernetesObject[] = [];
  for (const d of docs) {
    if (d.errors.length) throw new CliError(`helm-keep: stdin is not YAML: ${d.errors[0]!.message.split('\n')[0]}`);
    const o = d.toJS() as KubernetesObject | null;
    if (o) objects.push(o);
  }
  return markKept(objects)
    .map((o) => `---\n${stringify(o)}`)
    .join('');
}

export async function helmKeep(args: string[], io: CliIO): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  if (args.length) throw new CliError(`helm-keep takes no arguments, got ${args.join(' ')}`);
  io.stdout(keepManifests(await readStdin()));
  return 0;
}
