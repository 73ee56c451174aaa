// The build outputs in the cache: which are missing, and running simcluster/build.sh with its progress streamed.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BINARIES, type Layout } from './layout.js';

/** What build.sh must still produce: the six binaries, the kwok stages file and the NodeClaim CRD. */
export function missingBuildOutputs(binDir: string, karpenterVersion: string): string[] {
  const missing: string[] = BINARIES.filter((b) => !isExecutable(join(binDir, b)));
  if (!hasNotReadyStage(kwokStagesPath(binDir))) missing.push('kwok-stages.yaml');
  if (!existsSync(nodeClaimCrdPath(binDir, karpenterVersion))) missing.push('karpenter.sh_nodeclaims.yaml');
  return missing;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The CRDs Karpenter's kwok provider needs, as simcluster/build-karpenter.sh copies them (NodeClaim first: the provisioner lists it). */
export const KARPENTER_CRDS = [
  'karpenter.sh_nodeclaims.yaml',
  'karpenter.sh_nodepools.yaml',
  'karpenter.sh_nodeoverlays.yaml',
  'karpenter.kwok.sh_kwoknodeclasses.yaml',
] as const;

export function karpenterCrdPaths(l: Layout): string[] {
  return KARPENTER_CRDS.map((f) => join(l.karpenterBinDir, 'crds', f));
}

/** What build-karpenter.sh must still produce. */
export function missingKarpenterOutputs(l: Layout): string[] {
  const missing = isExecutable(join(l.karpenterBinDir, 'karpenter-kwok')) ? [] : ['karpenter-kwok'];
  return [
    ...missing,
    ...karpenterCrdPaths(l)
      .filter((f) => !existsSync(f))
      .map((f) => basename(f)),
  ];
}

/**
 * The CRDs KEDA's operator watches from its start (config/crd/bases), as simcluster/build-keda.sh copies
 * them: without one, its manager's cache never syncs and nothing is reconciled.
 */
export const KEDA_CRDS = [
  'keda.sh_scaledobjects.yaml',
  'keda.sh_scaledjobs.yaml',
  'keda.sh_triggerauthentications.yaml',
  'keda.sh_clustertriggerauthentications.yaml',
  'eventing.keda.sh_cloudeventsources.yaml',
  'eventing.keda.sh_clustercloudeventsources.yaml',
] as const;

/** KEDA's two binaries as build-keda.sh names them: the operator and its metrics server. */
export const KEDA_BINARIES = ['keda', 'keda-adapter'] as const;

export function kedaCrdPaths(l: Layout): string[] {
  return KEDA_CRDS.map((f) => join(l.kedaBinDir, 'crds', f));
}

/** What build-keda.sh must still produce. */
export function missingKedaOutputs(l: Layout): string[] {
  return [
    ...KEDA_BINARIES.filter((b) => !isExecutable(join(l.kedaBinDir, b))),
    ...kedaCrdPaths(l)
      .filter((f) => !existsSync(f))
      .map((f) => basename(f)),
  ];
}

/** Runs a build script (a no-op when everything is built), forwarding its progress lines to `log`. */
export function runBuild(script: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let tail = '';
    const forward = (chunk: Buffer): void => {
      tail = (tail + chunk.toString()).slice(-4000);
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') log(line);
    };
    child.stderr.on('data', forward);
    child.stdout.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${basename(script)} exited with ${code}; last output:\n${tail}`));
    });
  });
}

/** The kwok Stages (node initialize + heartbeat with lease, pod ready/complete/delete), copied by build.sh. */
export function kwokStagesPath(binDir: string): string {
  return join(binDir, 'kwok-stages.yaml');
}

/** Stages files written before the provisioner's NotReady fault lack kwok's chaos node-not-ready Stage. */
export function hasNotReadyStage(stagesFile: string): boolean {
  try {
    return readFileSync(stagesFile, 'utf8').includes('name: node-not-ready');
  } catch {
    return false;
  }
}

/** Karpenter's NodeClaim CRD from its Go module, copied by simcluster/fetch-crds.sh. */
export function nodeClaimCrdPath(binDir: string, karpenterVersion: string): string {
  return join(binDir, 'crds', `karpenter-${karpenterVersion}`, 'karpenter.sh_nodeclaims.yaml');
}
