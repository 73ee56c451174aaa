import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyRequest, countWrites, diffCounts } from '../../../bench/verbs.js';

describe('classifyRequest', () => {
  const cases: Array<[string, string, string, string]> = [
    ['GET', '/api/v1/nodes', 'list', 'core/nodes'],
    ['GET', '/api/v1/nodes/gpu-a100-0', 'get', 'core/nodes'],
    ['GET', '/api/v1/nodes?allowWatchBookmarks=true&resourceVersion=272&watch=true', 'watch', 'core/nodes'],
    ['GET', '/api/v1/watch/nodes', 'watch', 'core/nodes'],
    ['GET', '/apis/apps/v1/namespaces/ns1/statefulsets', 'list', 'apps/statefulsets'],
    ['GET', '/apis/apps/v1/namespaces/ns1/statefulsets/ws-1', 'get', 'apps/statefulsets'],
    ['GET', '/apis/apps/v1/statefulsets?limit=500&resourceVersion=0', 'list', 'apps/statefulsets'],
    ['GET', '/apis/kaito.sh/v1beta1/namespaces/ns/workspaces?watch=1', 'watch', 'kaito.sh/workspaces'],
    ['POST', '/apis/apps/v1/namespaces/ns/statefulsets', 'create', 'apps/statefulsets'],
    ['PUT', '/apis/kaito.sh/v1beta1/namespaces/ns/workspaces/ws-1/status', 'update', 'kaito.sh/workspaces/status'],
    ['PATCH', '/apis/kaito.sh/v1beta1/namespaces/ns/workspaces/ws-1?fieldManager=x&force=true', 'patch', 'kaito.sh/workspaces'],
    ['DELETE', '/api/v1/namespaces/ns/services/ws-1', 'delete', 'core/services'],
    ['DELETE', '/api/v1/namespaces/ns/pods', 'deletecollection', 'core/pods'],
    ['POST', '/apis/events.k8s.io/v1/namespaces/ns/events', 'create', 'events.k8s.io/events'],
    ['POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 'create', 'authorization.k8s.io/selfsubjectaccessreviews'],
    // The Namespace object itself and its subresources.
    ['GET', '/api/v1/namespaces', 'list', 'core/namespaces'],
    ['GET', '/api/v1/namespaces/ns1', 'get', 'core/namespaces'],
    ['PUT', '/api/v1/namespaces/ns1/finalize', 'update', 'core/namespaces/finalize'],
    ['PUT', '/api/v1/namespaces/ns1/status', 'update', 'core/namespaces/status'],
    // Discovery and other non-resource URLs count as get.
    ['GET', '/api', 'get', '/api'],
    ['GET', '/apis', 'get', '/apis'],
    ['GET', '/apis/apps/v1', 'get', '/apis/apps/v1'],
    ['GET', '/version', 'get', '/version'],
    ['GET', '/openapi/v3', 'get', '/openapi/v3'],
  ];
  for (const [method, url, verb, resource] of cases) {
    it(`${method} ${url} → ${verb} ${resource}`, () => assert.deepEqual(classifyRequest(method, url), { verb, resource }));
  }
});

describe('countWrites / diffCounts', () => {
  it('counts only the write verbs', () => {
    assert.equal(countWrites({ get: 5, list: 2, watch: 9, create: 3, update: 4, patch: 1, delete: 2, deletecollection: 1 }), 11);
    assert.equal(countWrites({ get: 5, watch: 1 }), 0);
  });
  it('subtracts two readings of the same counter and drops zeros', () => {
    assert.deepEqual(diffCounts({ get: 5, create: 2 }, { get: 5, create: 4, patch: 1 }), { create: 2, patch: 1 });
    assert.deepEqual(diffCounts({ get: 1 }, { get: 1 }), {});
  });
});
