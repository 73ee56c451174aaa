// More of Kubernetes' pod validation, for the parts of a user's pod template the Workspace CRD keeps as-is:
// enums (image pull policy, DNS policy, toleration operators and effects), one source per volume and per
// environment variable, probe handlers and ports, user and group IDs, node selectors. Each function
// returns the problems of one part; workload-admission.ts calls them.
import { labelErrors } from './object-meta.js';
import { portNameProblem, qualifiedNameProblem } from './k8s-names.js';
import type { SchemaError } from './schema-check.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const present = (o: Obj): string[] => Object.keys(o).filter((k) => o[k] !== undefined && o[k] !== null);
const ID_MAX = 2 ** 31 - 1;

function oneOf(value: unknown, allowed: readonly string[], field: string): SchemaError[] {
  if (value === undefined || value === null || value === '' || (typeof value === 'string' && allowed.includes(value))) return [];
  return [{ field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}` }];
}

function idErrors(sc: unknown, path: string): SchemaError[] {
  if (!isObject(sc)) return [];
  return ['runAsUser', 'runAsGroup', 'fsGroup']
    .filter((k) => typeof sc[k] === 'number' && (sc[k] < 0 || sc[k] > ID_MAX))
    .map((k) => ({ field: `${path}.${k}`, message: `Invalid value: ${String(sc[k])}: must be between 0 and ${ID_MAX}, inclusive` }));
}

function portErrors(port: unknown, field: string): SchemaError[] {
  if (typeof port === 'number') return port >= 1 && port <= 65535 ? [] : [{ field, message: `Invalid value: ${port}: must be between 1 and 65535, inclusive` }];
  if (typeof port === 'string') {
    const problem = portNameProblem(port);
    return problem ? [{ field, message: `Invalid value: ${JSON.stringify(port)}: ${problem}` }] : [];
  }
  return [{ field, message: 'Required value' }];
}

const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];

function probeErrors(probe: unknown, path: string): SchemaError[] {
  if (!isObject(probe)) return [];
  const handlers = HANDLERS.filter((h) => isObject(probe[h]));
  if (handlers.length === 0) return [{ field: path, message: 'Required value: must specify a handler type' }];
  if (handlers.length > 1) return [{ field: `${path}.${handlers[1]}`, message: 'Forbidden: may not specify more than 1 handler type' }];
  const handler = probe[handlers[0]!] as Obj;
  if (handlers[0] === 'httpGet' || handlers[0] === 'tcpSocket') return portErrors(handler.port, `${path}.${handlers[0]}.port`);
  if (handlers[0] === 'grpc') return portErrors(typeof handler.port === 'number' ? handler.port : undefined, `${path}.grpc.port`);
  return [];
}

function envSourceErrors(env: Obj, path: string): SchemaError[] {
  if (!isObject(env.valueFrom)) return [];
  const sources = present(env.valueFrom);
  if (sources.length > 1) return [{ field: `${path}.valueFrom`, message: 'Invalid value: may not have more than one field specified at a time' }];
  if (sources.length === 0)
    return [
      { field: `${path}.valueFrom`, message: 'Invalid value: must specify one of: configMapKeyRef, fieldRef, fileKeyRef, resourceFieldRef or secretKeyRef' },
    ];
  if (typeof env.value === 'string' && env.value !== '')
    return [{ field: `${path}.valueFrom`, message: 'Invalid value: may not be specified when `value` is not empty' }];
  return [];
}

/** The checks of one container besides names, images, ports, quantities and mounts. */
export function moreContainerErrors(c: Obj, path: string): SchemaError[] {
  return [
    ...oneOf(c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never'], `${path}.imagePullPolicy`),
    ...objects(c.env).flatMap((e, i) => envSourceErrors(e, `${path}.env[${i}]`)),
    ...['livenessProbe', 'readinessProbe', 'startupProbe'].flatMap((p) => probeErrors(c[p], `${path}.${p}`)),
    ...idErrors(c.securityContext, `${path}.securityContext`),
  ];
}

/** The checks of a pod spec besides its containers and volume names. */
export function morePodSpecErrors(spec: Obj, path: string): SchemaError[] {
  const out: SchemaError[] = [
    ...oneOf(spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'], `${path}.dnsPolicy`),
    ...idErrors(spec.securityContext, `${path}.securityContext`),
    ...labelErrors(spec.nodeSelector, `${path}.nodeSelector`),
  ];
  for (const [i, v] of objects(spec.volumes).entries()) {
    const sources = present(v).filter((k) => k !== 'name');
    if (sources.length > 1) out.push({ field: `${path}.volumes[${i}].${sources[1]}`, message: 'Forbidden: may not specify more than 1 volume type' });
  }
  for (const [i, t] of objects(spec.tolerations).entries()) {
    out.push(...oneOf(t.operator, ['Equal', 'Exists'], `${path}.tolerations[${i}].operator`));
    out.push(...oneOf(t.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute'], `${path}.tolerations[${i}].effect`));
    const key = typeof t.key === 'string' ? t.key : '';
    const problem = key ? qualifiedNameProblem(key) : undefined;
    if (problem) out.push({ field: `${path}.tolerations[${i}].key`, message: `Invalid value: ${JSON.stringify(key)}: ${problem}` });
  }
  return out;
}
