// The simcluster's CRD installer against a scripted API server: what reaches the wire is the file's
// object, `x-kubernetes-*` keys included, and an existing CRD is kept, replaced or left alone as its
// source and digest say.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { CRD_DIGEST_ANNOTATION, CRD_SOURCE_ANNOTATION, crdFromFile, installCrd, mustReplace, type Crd } from '../../../src/simcluster/crds.js';
import { listenLocal } from '../runtime/fake-apiserver.js';

/** A cut of Karpenter's NodeClaim CRD: CEL rules at three depths, int-or-string, preserve-unknown-fields. */
const NODECLAIM_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: nodeclaims.karpenter.sh
spec:
  group: karpenter.sh
  names: {kind: NodeClaim, plural: nodeclaims, singular: nodeclaim, listKind: NodeClaimList}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - message: spec is immutable
              rule: self == oldSelf
            properties:
              nodeClassRef:
                type: object
                properties:
                  group:
                    type: string
                    x-kubernetes-validations:
                    - message: group may not be empty
                      rule: self != ''
              requirements:
                type: array
                x-kubernetes-validations:
                - message: requirements with operator 'In' must have a value defined
                  rule: 'self.all(x, x.operator == ''In'' ? x.values.size() != 0 : true)'
                items: {type: object, x-kubernetes-preserve-unknown-fields: true}
              resources:
                type: object
                properties:
                  requests:
                    type: object
                    additionalProperties: {anyOf: [{type: integer}, {type: string}], x-kubernetes-int-or-string: true}
`;
const SOURCE = 'sigs.k8s.io/karpenter@v1.10.0';
const established = { conditions: [{ type: 'Established', status: 'True' }] };

/** A CRD endpoint that keeps one object and records every request with its body. */
class CrdServer {
  live?: Crd;
  readonly requests: { method: string; body?: Crd }[] = [];
  private server?: http.Server;

  async start(): Promise<KubeConfig> {
    const { server, kubeconfig } = await listenLocal((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const body = text ? (JSON.parse(text) as Crd) : undefined;
        this.requests.push({ method: req.method ?? '', body });
        const answer = (code: number, obj: unknown): void => void res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(obj));
        const status = (code: number, reason: string): void => answer(code, { kind: 'Status', code, reason, message: reason });
        if (req.method === 'GET') return this.live ? answer(200, this.live) : status(404, 'NotFound');
        if (req.method === 'POST' && this.live) return status(409, 'AlreadyExists');
        if (req.method === 'PUT' && body?.metadata?.resourceVersion !== this.live?.metadata?.resourceVersion) return status(409, 'Conflict');
        this.live = { ...body!, metadata: { ...body!.metadata, resourceVersion: String(this.requests.length) }, status: established };
        answer(req.method === 'POST' ? 201 : 200, this.live);
      });
    });
    this.server = server;
    return kubeconfig;
  }

  writes = (): string[] => this.requests.filter((r) => r.method !== 'GET').map((r) => r.method);
  stop = (): Promise<void> => new Promise((r) => this.server?.close(() => r()));
}

const strip = (crd: Crd | undefined): unknown => {
  const { [CRD_SOURCE_ANNOTATION]: _s, [CRD_DIGEST_ANNOTATION]: _d, ...annotations } = crd?.metadata?.annotations ?? {};
  const { resourceVersion: _rv, annotations: _a, ...metadata } = crd?.metadata ?? {};
  return { ...crd, metadata: { ...metadata, ...(Object.keys(annotations).length ? { annotations } : {}) } };
};

describe('simcluster CRD installer', () => {
  const api = new CrdServer();
  let kc: KubeConfig;
  const file = join(mkdtempSync(join(tmpdir(), 'crds-')), 'karpenter.sh_nodeclaims.yaml');
  writeFileSync(file, NODECLAIM_CRD);
  before(async () => (kc = await api.start()));
  after(() => api.stop());
  beforeEach(() => {
    api.live = undefined;
    api.requests.length = 0;
  });

  it("sends the file's CRD as it is: every x-kubernetes-validations rule, int-or-string and preserve-unknown-fields reach the server", async () => {
    assert.equal(await installCrd(kc, file, { source: SOURCE }), 'nodeclaims.karpenter.sh');
    const sent = api.requests.find((r) => r.method === 'POST')?.body;
    assert.deepEqual(strip(sent), parse(NODECLAIM_CRD));
    const text = JSON.stringify(sent);
    for (const rule of ['spec is immutable', 'group may not be empty', "requirements with operator 'In' must have a value defined"])
      assert.ok(text.includes(rule), rule);
    assert.equal(text.match(/"x-kubernetes-validations"/g)?.length, 3);
    assert.ok(text.includes('"x-kubernetes-int-or-string":true') && text.includes('"x-kubernetes-preserve-unknown-fields":true'));
    assert.equal(sent?.metadata?.annotations?.[CRD_SOURCE_ANNOTATION], SOURCE);
  });

  it('replaces a copy from the same source that lost its rules (installed before the digest), and leaves an intact one alone', async () => {
    const lossy = parse(NODECLAIM_CRD) as Crd & { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }[] } };
    delete lossy.spec.versions[0]!.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'];
    api.live = { ...lossy, metadata: { ...lossy.metadata, resourceVersion: '7', annotations: { [CRD_SOURCE_ANNOTATION]: SOURCE } }, status: established };
    await installCrd(kc, file, { source: SOURCE });
    assert.deepEqual(api.writes(), ['POST', 'PUT']);
    assert.equal(api.requests.find((r) => r.method === 'PUT')?.body?.metadata?.resourceVersion, '7');
    assert.deepEqual(strip(api.live), { ...(parse(NODECLAIM_CRD) as object), status: established });

    api.requests.length = 0;
    await installCrd(kc, file, { source: SOURCE });
    assert.deepEqual(api.writes(), ['POST'], 'only the refused create');
  });

  it("keeps another source's CRD unless asked to replace it", async () => {
    const other = crdFromFile(NODECLAIM_CRD.replace('group may not be empty', 'other'), 'sigs.k8s.io/karpenter@v1.6.2');
    api.live = { ...other, metadata: { ...other.metadata, resourceVersion: '3' }, status: established };
    await installCrd(kc, file, { source: SOURCE });
    assert.deepEqual(api.writes(), ['POST']);
    assert.equal(api.live.metadata?.annotations?.[CRD_SOURCE_ANNOTATION], 'sigs.k8s.io/karpenter@v1.6.2');

    await installCrd(kc, file, { source: SOURCE, replace: true });
    assert.deepEqual(api.writes(), ['POST', 'POST', 'PUT']);
    assert.equal(api.live.metadata?.annotations?.[CRD_SOURCE_ANNOTATION], SOURCE);
    assert.ok(JSON.stringify(api.live).includes('group may not be empty'));
  });

  it('decides by source and digest alone', () => {
    const ours = crdFromFile(NODECLAIM_CRD, SOURCE);
    assert.equal(mustReplace(ours, ours), false);
    assert.equal(mustReplace(crdFromFile(NODECLAIM_CRD, 'elsewhere'), ours), false);
    assert.equal(mustReplace(crdFromFile(NODECLAIM_CRD, 'elsewhere'), ours, true), true);
    assert.equal(mustReplace(crdFromFile(`${NODECLAIM_CRD}  preserveUnknownFields: false\n`, SOURCE), ours), true);
    assert.equal(mustReplace(crdFromFile(NODECLAIM_CRD, SOURCE), crdFromFile(NODECLAIM_CRD, SOURCE)), false, 'the digest is stable');
  });
});
