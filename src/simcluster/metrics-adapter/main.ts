// The external metrics adapter process (`simcluster up` starts it): HTTPS on 127.0.0.1 with a pair
// signed by the cluster CA, reached by the apiserver's aggregation layer through the APIService
// registration.ts makes. Each metric read is a GET of the namespace's values ConfigMap, so a value a
// test writes is what the HPA controller sees on its next sync. SIGTERM stops it cleanly.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { parseArgs } from 'node:util';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeClient } from '../../runtime/client.js';
import { loadClusterAccess } from '../../runtime/cluster-access.js';
import { ignoreNotFound } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import { KubeTransport } from '../../runtime/transport.js';
import { jsonLog as log, runComponentProcess } from '../sim-process.js';
import { discovery, metricAnswer, METRIC_VALUES_CONFIGMAP, notFound, routeOf, type Answer } from './metrics-adapter.js';

async function runMetricsAdapter(argv: string[]): Promise<{ stop: () => Promise<void> }> {
  const { values } = parseArgs({
    args: argv,
    options: { kubeconfig: { type: 'string' }, port: { type: 'string' }, cert: { type: 'string' }, key: { type: 'string' } },
    strict: true,
  });
  const port = Number.parseInt(values.port ?? '', 10);
  if (!values.kubeconfig || !values.cert || !values.key || !Number.isInteger(port)) throw new Error('usage: --kubeconfig F --port N --cert F --key F');
  const client = new KubeClient(new KubeTransport(await loadClusterAccess({ kubeconfig: values.kubeconfig }), { qps: 20, burst: 40 }));
  const stats = { reads: 0, served: 0, missing: 0 };
  const answer = async (url: string): Promise<Answer> => {
    const r = routeOf(url);
    switch (r.kind) {
      case 'health':
        return { status: 200, body: stats };
      case 'discovery':
        return discovery();
      case 'metric': {
        stats.reads++;
        const cm = await client.get<V1ConfigMap>(Resources.configMaps, r.namespace, METRIC_VALUES_CONFIGMAP).catch(ignoreNotFound);
        const a = metricAnswer(r.namespace, r.metric, cm ? cm.data : undefined, new Date());
        if (a.status === 200) stats.served++;
        else stats.missing++;
        return a;
      }
      case 'unknown':
        return notFound(url);
    }
  };
  const server = createServer({ cert: readFileSync(values.cert), key: readFileSync(values.key) }, (req, res) => {
    answer(req.url ?? '/').then(
      (a) => {
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(a.body));
      },
      (err: unknown) => {
        log({ url: req.url, error: err instanceof Error ? err.message : String(err) }, 'metric read failed');
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, message: 'the values ConfigMap could not be read' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  log({ port }, 'metrics adapter serving external.metrics.k8s.io/v1beta1');
  return {
    // The aggregator keeps its connections open: close them, or close() waits for ever.
    stop: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

runComponentProcess('metrics-adapter', () => runMetricsAdapter(process.argv.slice(2)));
