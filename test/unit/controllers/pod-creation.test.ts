import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventsV1Event, V1StatefulSet } from '@kubernetes/client-node';
import { POD_CREATION_FAILED, podCreationFailure } from '../../../src/controllers/workspace/pod-creation.js';

const sts = (replicas: number, created: number, uid = 'sts-uid'): V1StatefulSet => ({
  metadata: { name: 'ws', namespace: 'team', uid },
  spec: { replicas, selector: {}, serviceName: 'ws-headless', template: {} },
  status: { replicas: created },
});
const ev = (note: string, at: string, uid = 'sts-uid'): EventsV1Event => ({
  metadata: { name: `ws.${at}`, namespace: 'team' },
  eventTime: undefined as unknown as Date,
  regarding: { kind: 'StatefulSet', name: 'ws', uid },
  reason: 'FailedCreate',
  note,
  deprecatedLastTimestamp: new Date(at),
});

test('podCreationFailure: the newest FailedCreate of this StatefulSet while pods are missing', () => {
  const older = ev('create Pod ws-0 in StatefulSet ws failed error: quota', '2026-01-01T00:00:00Z');
  const newer = ev('create Pod ws-0 in StatefulSet ws failed error: label too long', '2026-01-01T00:01:00Z');
  const cases: [string, V1StatefulSet, EventsV1Event[], string | undefined][] = [
    ['no pod created, two events: the newest names the cause', sts(1, 0), [older, newer], 'label too long'],
    ['every pod created: old events are history', sts(2, 2), [newer], undefined],
    ['one of two pods missing', sts(2, 1), [older], 'quota'],
    ['pods missing but no event (yet)', sts(1, 0), [], undefined],
    ['an event of a same-named StatefulSet that was deleted (other UID)', sts(1, 0), [ev('old one', '2026-01-01T00:02:00Z', 'old-uid')], undefined],
  ];
  for (const [name, s, events, want] of cases) {
    const got = podCreationFailure(s, events);
    if (want === undefined) assert.equal(got, undefined, name);
    else {
      assert.equal(got?.reason, POD_CREATION_FAILED, name);
      assert.match(got?.message ?? '', new RegExp(`^StatefulSet ws cannot create its pods: .*${want}`), name);
    }
  }
});
