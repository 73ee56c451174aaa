// KEDA (opt-in) out of cluster: its operator and its metrics server as two host processes with the admin
// kubeconfig, every listener on 127.0.0.1 inside the cluster's port range but the metrics server's own
// /metrics (it takes a port, not an address), one serving-and-client pair of the cluster CA for the
// gRPC link between them and for the aggregation layer, no leader election, no cert rotation, no webhooks.
// Flag and environment names are KEDA v2.21's (cmd/operator/main.go, cmd/adapter/main.go).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isAlreadyExists } from '../../runtime/errors.js';
import { kedaCrdPaths } from '../binaries.js';
import type { Component } from '../components.js';
import { installCrd } from '../crds.js';
import type { Layout } from '../layout.js';
import { ensureServingPair } from '../pki.js';
import type { ServiceRef } from '../metrics-adapter/registration.js';

/** Where KEDA's leader-election and cluster-wide objects would live (KEDA's default POD_NAMESPACE). */
export const KEDA_NAMESPACE = 'keda';
/** The Service the external metrics APIService names, as KEDA's manifests call it. */
export const KEDA_ADAPTER_SERVICE: ServiceRef = { namespace: KEDA_NAMESPACE, name: 'keda-metrics-apiserver' };
/** The pair's name in the cluster's PKI folder. */
export const KEDA_PAIR = 'keda';
/** What the aggregator checks (<service>.<namespace>.svc), the operator's Service name as KEDA's own certificate has it, and loopback. */
export const KEDA_DNS_NAMES = [`${KEDA_ADAPTER_SERVICE.name}.${KEDA_NAMESPACE}.svc`, `keda-operator.${KEDA_NAMESPACE}.svc`, 'localhost'];

/** Both read these at start; WATCH_NAMESPACE must be set (empty: every namespace). */
function kedaEnv(): Record<string, string> {
  return { WATCH_NAMESPACE: '', POD_NAMESPACE: KEDA_NAMESPACE, KEDA_CLUSTER_OBJECT_NAMESPACE: KEDA_NAMESPACE };
}

const loopback = (port: number): string => `127.0.0.1:${port}`;

export function kedaOperatorArgs(l: Layout): string[] {
  return [
    `--kubeconfig=${l.kubeconfigPath}`,
    `--health-probe-bind-address=${loopback(l.ports.kedaOperatorHealth)}`,
    `--metrics-bind-address=${loopback(l.ports.kedaOperatorMetrics)}`,
    // The gRPC service its metrics server asks for metric values (mutual TLS with the pair in --cert-dir).
    `--metrics-service-bind-address=${loopback(l.ports.kedaMetricsService)}`,
    '--leader-elect=false',
    // The pair comes from the cluster's PKI; rotation would write a Secret and patch the APIService.
    '--enable-cert-rotation=false',
    `--cert-dir=${l.kedaCertDir}`,
    '--zap-log-level=info',
    '--zap-encoder=json',
  ];
}

export function kedaAdapterArgs(l: Layout): string[] {
  const cert = (f: string): string => join(l.kedaCertDir, f);
  return [
    // controller-runtime's client, the informers', and the delegated authentication and authorization.
    `--kubeconfig=${l.kubeconfigPath}`,
    `--lister-kubeconfig=${l.kubeconfigPath}`,
    `--authentication-kubeconfig=${l.kubeconfigPath}`,
    `--authorization-kubeconfig=${l.kubeconfigPath}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${l.ports.kedaAdapter}`,
    `--cert-dir=${l.kedaCertDir}`,
    `--tls-cert-file=${cert('tls.crt')}`,
    `--tls-private-key-file=${cert('tls.key')}`,
    `--client-ca-file=${cert('ca.crt')}`,
    `--metrics-service-address=${loopback(l.ports.kedaMetricsService)}`,
    `--port=${l.ports.kedaAdapterMetrics}`,
    '--zap-log-level=info',
    '--zap-encoder=json',
  ];
}

function kedaComponent(l: Layout, name: 'keda-operator' | 'keda-adapter', binary: string, args: string[], ports: number[], healthUrl: string): Component {
  return {
    name,
    ports,
    binary: join(l.kedaBinDir, binary),
    args,
    env: kedaEnv(),
    healthUrl,
    healthWithClientCert: false,
    stopGraceMs: 10_000,
    stale: (argv) => !isDeepStrictEqual(argv, args),
  };
}

/** The operator first: the metrics server dials its gRPC service. */
export function kedaComponents(l: Layout): Component[] {
  const p = l.ports;
  return [
    kedaComponent(
      l,
      'keda-operator',
      'keda',
      kedaOperatorArgs(l),
      [p.kedaOperatorHealth, p.kedaOperatorMetrics, p.kedaMetricsService],
      `http://${loopback(p.kedaOperatorHealth)}/readyz`,
    ),
    // Anonymous /readyz is allowed by the delegated authorizer's always-allow paths.
    kedaComponent(l, 'keda-adapter', 'keda-adapter', kedaAdapterArgs(l), [p.kedaAdapter, p.kedaAdapterMetrics], `https://${loopback(p.kedaAdapter)}/readyz`),
  ];
}

/** ca.crt, tls.crt, tls.key (the names KEDA reads) from the cluster's PKI: one pair serves and dials, as KEDA's own certificate does. */
export async function writeKedaCerts(l: Layout): Promise<void> {
  const pair = await ensureServingPair(l.pkiDir, KEDA_PAIR, KEDA_DNS_NAMES, { ips: ['127.0.0.1'], clientAuth: true });
  mkdirSync(l.kedaCertDir, { recursive: true });
  copyFileSync(join(l.pkiDir, 'ca.crt'), join(l.kedaCertDir, 'ca.crt'));
  copyFileSync(pair.certFile, join(l.kedaCertDir, 'tls.crt'));
  copyFileSync(pair.keyFile, join(l.kedaCertDir, 'tls.key'));
}

/** KEDA's namespace and CRDs, before its operator starts (its caches wait for every kind it watches). */
export async function installKedaApi(kc: KubeConfig, l: Layout): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: KEDA_NAMESPACE } } })
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  const source = `github.com/kedacore/keda/v2@${l.versions.keda}`;
  for (const file of kedaCrdPaths(l)) await installCrd(kc, file, { source });
}
