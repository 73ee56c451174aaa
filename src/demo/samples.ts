// The demo's sample objects: every YAML file in examples/demo/. Workspaces and InferenceSets are
// applied as they are; a Deployment stands for what an older KAITO release left behind for the
// same-named workspace.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Deployment } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { INFERENCESET_KIND } from '../api/inferenceset-types.js';
import { KIND, type Workspace } from '../api/types.js';
import { parseWorkspace } from '../api/validation.js';
import { controllerOwnerRef, workspaceName } from '../builders/meta.js';
import type { InferenceSetObject } from '../controllers/inferenceset/children.js';
import { parseInferenceSet } from '../diff/inferenceset-intent.js';

export const DEMO_NAMESPACE = 'kaito-demo';

export interface Samples {
  workspaces: Workspace[];
  /** InferenceSets (CRD defaults applied); the demo scales each one up by a replica and back. */
  inferenceSets: InferenceSetObject[];
  /** Legacy Deployments, each named like the workspace that controls it. */
  legacy: V1Deployment[];
}

/** Parses the documents of one or more sample files; anything but a Workspace, an InferenceSet or a Deployment is an error. */
export function parseSamples(files: { path: string; text: string }[], namespace = DEMO_NAMESPACE): Samples {
  const out: Samples = { workspaces: [], inferenceSets: [], legacy: [] };
  for (const { path, text } of files) {
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
      const obj = doc.toJSON() as { kind?: string; metadata?: { name?: string } } | null;
      if (obj === null) continue;
      if (obj.kind === KIND) {
        const ws = parseWorkspace(obj);
        out.workspaces.push({ ...ws, metadata: { ...ws.metadata, namespace } });
      } else if (obj.kind === INFERENCESET_KIND) {
        const is = (() => {
          try {
            return parseInferenceSet(obj);
          } catch (err) {
            throw new Error(`${path}: ${(err as Error).message}`);
          }
        })();
        out.inferenceSets.push({ ...is, metadata: { ...is.metadata, namespace } });
      } else if (obj.kind === 'Deployment') {
        const d = obj as V1Deployment;
        out.legacy.push({ ...d, metadata: { ...d.metadata, namespace } });
      } else {
        throw new Error(`${path}: unexpected kind ${JSON.stringify(obj.kind)} (the demo applies Workspaces, InferenceSets and legacy Deployments)`);
      }
    }
  }
  const names = new Set(out.workspaces.map(workspaceName));
  const orphan = out.legacy.find((d) => !names.has(d.metadata?.name ?? ''));
  if (orphan) throw new Error(`legacy Deployment ${orphan.metadata?.name} has no workspace of the same name in the samples`);
  return out;
}

export function loadSamples(dir: string, namespace = DEMO_NAMESPACE): Samples {
  const files = readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
  if (files.length === 0) throw new Error(`no sample workspaces in ${dir}`);
  return parseSamples(files, namespace);
}

export function samplesDir(projectRoot: string): string {
  return join(projectRoot, 'examples', 'demo');
}

/** The legacy Deployment as KAITO left it: controlled by the live workspace (its UID). */
export function ownedLegacyDeployment(template: V1Deployment, live: Workspace): V1Deployment {
  if (!live.metadata.uid) throw new Error(`workspace ${workspaceName(live)} has no uid yet`);
  return { ...template, metadata: { ...template.metadata, ownerReferences: [controllerOwnerRef(live)] } };
}
