import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moreContainerErrors, morePodSpecErrors } from '../../../src/api/pod-admission.js';

type Doc = Record<string, unknown>;

test('containers: pull policy, one source per environment variable, probe handlers and ports, user IDs', () => {
  const good: Doc[] = [
    { imagePullPolicy: 'IfNotPresent' },
    {
      env: [
        { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'B', value: '', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
    },
    { readinessProbe: { httpGet: { path: '/', port: 'http' } }, livenessProbe: { tcpSocket: { port: 5000 } }, startupProbe: { exec: { command: ['true'] } } },
    { securityContext: { runAsUser: 0, runAsGroup: 2 ** 31 - 1 } },
  ];
  for (const c of good) assert.deepEqual(moreContainerErrors(c, 'c'), [], JSON.stringify(c));
  const bad: [Doc, string, RegExp][] = [
    [{ imagePullPolicy: 'Sometimes' }, 'c.imagePullPolicy', /supported values: "Always", "IfNotPresent", "Never"/],
    [{ env: [{ name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }, 'c.env[0].valueFrom', /when `value` is not empty/],
    [{ env: [{ name: 'A', valueFrom: { fieldRef: {}, configMapKeyRef: {} } }] }, 'c.env[0].valueFrom', /more than one field/],
    [{ env: [{ name: 'A', valueFrom: {} }] }, 'c.env[0].valueFrom', /must specify one of/],
    [{ readinessProbe: { periodSeconds: 5 } }, 'c.readinessProbe', /must specify a handler type/],
    [{ livenessProbe: { exec: { command: ['x'] }, tcpSocket: { port: 1 } } }, 'c.livenessProbe.tcpSocket', /more than 1 handler/],
    [{ startupProbe: { httpGet: { port: 0 } } }, 'c.startupProbe.httpGet.port', /between 1 and 65535/],
    [{ startupProbe: { httpGet: { port: 'HTTP' } } }, 'c.startupProbe.httpGet.port', /alpha-numeric/],
    [{ securityContext: { runAsUser: -1 } }, 'c.securityContext.runAsUser', /between 0 and 2147483647/],
  ];
  for (const [c, field, want] of bad) {
    const [first] = moreContainerErrors(c, 'c');
    assert.equal(first?.field, field, JSON.stringify(c));
    assert.match(first.message, want, field);
  }
});

test('pod specs: DNS policy, one source per volume, node selector, tolerations, pod user IDs', () => {
  const good: Doc[] = [
    { dnsPolicy: 'None', volumes: [{ name: 'a' }, { name: 'b', emptyDir: {} }], nodeSelector: { 'kubernetes.io/os': 'linux' } },
    { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }, { operator: 'Exists' }], securityContext: { fsGroup: 1000 } },
  ];
  for (const s of good) assert.deepEqual(morePodSpecErrors(s, 'spec'), [], JSON.stringify(s));
  const bad: [Doc, string, RegExp][] = [
    [{ dnsPolicy: 'Nowhere' }, 'spec.dnsPolicy', /supported values/],
    [{ volumes: [{ name: 'd', emptyDir: {}, hostPath: { path: '/x' } }] }, 'spec.volumes[0].hostPath', /more than 1 volume type/],
    [{ nodeSelector: { zone: 'a b' } }, 'spec.nodeSelector[zone]', /valid label/],
    [{ tolerations: [{ key: 'k', operator: 'Maybe' }] }, 'spec.tolerations[0].operator', /"Equal", "Exists"/],
    [{ tolerations: [{ key: 'k', effect: 'Never' }] }, 'spec.tolerations[0].effect', /NoExecute/],
    [{ tolerations: [{ key: 'a b' }] }, 'spec.tolerations[0].key', /name part/],
    [{ securityContext: { fsGroup: -1 } }, 'spec.securityContext.fsGroup', /between 0/],
  ];
  for (const [s, field, want] of bad) {
    const [first] = morePodSpecErrors(s, 'spec');
    assert.equal(first?.field, field, JSON.stringify(s));
    assert.match(first.message, want, field);
  }
});
