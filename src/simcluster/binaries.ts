// The build outputs in the cache: which are missing, and running simcluster/build.sh with its progress streamed.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BINARIES, type Layout } from './layout.js';

/** What build.sh must still produce: the six binaries, the kwok stages file and the NodeClaim CRD. */
export function missingBuildOutputs(binDir: string, karpenterVersion: string): string[] {
  const missing: string[] = BINARIES.filter((b) => {
    try {
      accessSync(join(binDir, b), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
  if (!hasNotReadyStage(kwokStagesPath(binDir))) missing.push('kwok-stages.yaml');
  if (!existsSync(nodeClaimCrdPath(binDir, karpenterVersion))) missing.push('karpenter.sh_nodeclaims.yaml');
  return missing;
}

/** Runs build.sh (a no-op when everything is built), forwarding its progress lines to `log`. */
export function runBuild(l: Layout, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [l.buildScript], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
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
      else reject(new Error(`simcluster/build.sh exited with ${code}; last output:\n${tail}`));
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
