import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import { resolveNodeProvisioner } from '../../../src/api/node-provisioner.js';
import { parseManagerOptions } from '../../../src/manager/options.js';
import { KWOK_NODE_CLASS_FLAGS } from '../../../src/simcluster/karpenter/operator-flags.js';

const gates = (disable: boolean) => ({ ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: disable });

const rows: { name: string; flag?: string; disable: boolean; explicit?: boolean; provisioner: string; gate: boolean; warns?: boolean }[] = [
  { name: 'no flag, gate off: NodeClaims (KAITO v0.8.0 default)', disable: false, provisioner: 'azure-gpu-provisioner', gate: false },
  { name: 'no flag, gate on: bring-your-own nodes', disable: true, provisioner: 'byo', gate: true },
  { name: 'karpenter: auto-provisioning on', flag: 'karpenter', disable: false, provisioner: 'karpenter', gate: false },
  { name: 'byo sets the gate (KAITO v0.11+)', flag: 'byo', disable: false, provisioner: 'byo', gate: true },
  {
    name: 'the flag beats an explicit gate, and says so',
    flag: 'karpenter',
    disable: true,
    explicit: true,
    provisioner: 'karpenter',
    gate: false,
    warns: true,
  },
];
for (const r of rows) {
  test(`resolveNodeProvisioner: ${r.name}`, () => {
    const got = resolveNodeProvisioner(r.flag, gates(r.disable), r.explicit ?? false);
    assert.equal(got.provisioner, r.provisioner);
    assert.equal(got.featureGates.disableNodeAutoProvisioning, r.gate);
    assert.equal(!!got.warning, !!r.warns);
  });
}

test('an unknown provisioner is refused with the choices', () => {
  assert.throws(() => resolveNodeProvisioner('aws', DEFAULT_FEATURE_GATES, false), /must be one of azure-gpu-provisioner\|karpenter\|byo, got "aws"/);
});

test('kaito-ts run: karpenter mode needs --karpenter-node-classes, and parses the NodeClass flags', () => {
  assert.throws(() => parseManagerOptions(['--node-provisioner=karpenter'], {}), /--karpenter-node-classes is required/);
  const o = parseManagerOptions([...KWOK_NODE_CLASS_FLAGS], {});
  assert.ok(o !== 'help');
  assert.equal(o.nodeProvisioner, 'karpenter');
  assert.equal(o.nodeClasses?.kind, 'KWOKNodeClass');
  assert.equal(o.nodeClasses?.defaultName, 'default');
  const byo = parseManagerOptions(['--feature-gates=disableNodeAutoProvisioning=true'], {});
  assert.ok(byo !== 'help');
  assert.equal(byo.nodeProvisioner, 'byo');
  assert.equal(byo.nodeClasses, undefined);
});
