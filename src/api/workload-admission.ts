// What kube-apiserver refuses in the objects kaito-ts writes for a workspace (ControllerRevision,
// ConfigMap, Service, StatefulSet, Job) and in the child Workspaces of an InferenceSet: the parts a
// user's input reaches, which the Workspace CRD cannot check because they sit in a pod template it keeps
// as-is (container names, images, ports, environment, quantities, volumes, restart policy) or are
// derived from names and labels (object names, label values, annotation keys). Not the whole of
// Kubernetes' pod validation: what the builders write themselves is valid by construction.
import { tryParseQuantity } from '../catalog/quantity.js';
import { canonicalQuantity } from '../catalog/quantity-canonical.js';
import { admit } from './admission.js';
import { configMapKeyProblem, dns1123LabelProblem, envVarNameProblem, portNameProblem, qualifiedNameProblem } from './k8s-names.js';
import { annotationErrors, labelErrors, objectMetaErrors, type NameRule } from './object-meta.js';
import { moreContainerErrors, morePodSpecErrors } from './pod-admission.js';
import type { SchemaError } from './schema-check.js';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** apimachinery's MaxSecretSize / ConfigMap limit: data and binaryData together. */
export const CONFIG_MAP_MAX_BYTES = 1024 * 1024;
const PORT_MAX = 65535;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];

/** The name rule of each kind kube-apiserver applies to metadata.name. */
const NAME_RULE: Record<string, NameRule> = {
  // Kubernetes ≥ 1.34 with RelaxedServiceNameValidation (on by default in the v1.36 API server the tests run): a DNS-1123 label.
  Service: 'dns1123Label',
  StatefulSet: 'dns1123Subdomain',
  Job: 'dns1123Subdomain',
  ConfigMap: 'dns1123Subdomain',
  ControllerRevision: 'dns1123Subdomain',
  Secret: 'dns1123Subdomain',
};

/** Resource names native to Kubernetes: no prefix, or a kubernetes.io one. */
const isNative = (name: string): boolean => !name.includes('/') || /^([^/]*\.)?kubernetes\.io\//.test(name);
/** What a container may ask for among the native names. */
const isStandardContainerResource = (name: string): boolean => ['cpu', 'memory', 'ephemeral-storage'].includes(name) || name.startsWith('hugepages-');
/** Extended resources (`nvidia.com/gpu`): whole numbers, and a request equal to the limit. */
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.');

function quantityErrors(list: unknown, path: string): SchemaError[] {
  if (!isObject(list)) return [];
  const out: SchemaError[] = [];
  for (const [name, value] of Object.entries(list)) {
    const at = `${path}[${name}]`;
    const keyProblem = qualifiedNameProblem(name);
    if (keyProblem) out.push({ field: at, message: `Invalid value: ${JSON.stringify(name)}: ${keyProblem}` });
    else if (isNative(name) && !isStandardContainerResource(name))
      out.push({ field: at, message: `Invalid value: ${JSON.stringify(name)}: must be a standard resource for containers` });
    const written = typeof value === 'number' || typeof value === 'string' ? value : undefined;
    const canonical = written === undefined ? undefined : canonicalQuantity(written);
    if (canonical === undefined) {
      out.push({
        field: at,
        message: `Invalid value: ${JSON.stringify(value)}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      });
    } else if (canonical.startsWith('-')) {
      out.push({ field: at, message: `Invalid value: ${JSON.stringify(value)}: must be greater than or equal to 0` });
    } else if (isExtended(name) && !Number.isInteger(tryParseMilli(canonical) / 1000)) {
      out.push({ field: at, message: `Invalid value: ${JSON.stringify(value)}: must be an integer` });
    }
  }
  return out;
}

/** A canonical quantity in thousandths (enough to tell a whole number from a fraction). */
function tryParseMilli(canonical: string): number {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(canonical);
  if (!m) return NaN;
  if (m[2] === 'm') return Number(m[1]);
  if (m[2] === 'u' || m[2] === 'n') return NaN;
  return (tryParseQuantity(canonical) ?? NaN) * 1000;
}

function resourcesErrors(resources: unknown, path: string): SchemaError[] {
  if (!isObject(resources)) return [];
  const out = [...quantityErrors(resources.limits, `${path}.limits`), ...quantityErrors(resources.requests, `${path}.requests`)];
  if (out.length > 0 || !isObject(resources.requests)) return out;
  const limits = isObject(resources.limits) ? resources.limits : {};
  for (const [name, request] of Object.entries(resources.requests)) {
    const limit = limits[name];
    if (typeof limit !== 'string' && typeof limit !== 'number') {
      if (isExtended(name)) out.push({ field: `${path}.limits`, message: `Required value: Limit must be set for non overcommitable resources (${name})` });
      continue;
    }
    const r = tryParseQuantity(String(request));
    const l = tryParseQuantity(String(limit));
    if (r === undefined || l === undefined) continue;
    if (isExtended(name) && r !== l) {
      out.push({ field: `${path}.requests[${name}]`, message: `Invalid value: ${JSON.stringify(request)}: must be equal to ${name} limit of ${limit}` });
    } else if (r > l) {
      out.push({
        field: `${path}.requests[${name}]`,
        message: `Invalid value: ${JSON.stringify(request)}: must be less than or equal to ${name} limit of ${limit}`,
      });
    }
  }
  return out;
}

function containerErrors(c: Obj, path: string, volumes: ReadonlySet<string>): SchemaError[] {
  const out: SchemaError[] = [];
  const name = str(c.name);
  if (name === '') out.push({ field: `${path}.name`, message: 'Required value' });
  else {
    const problem = dns1123LabelProblem(name);
    if (problem) out.push({ field: `${path}.name`, message: `Invalid value: ${JSON.stringify(name)}: ${problem}` });
  }
  // Leading or trailing whitespace is refused in a Pod only, not in a workload's template (Kubernetes keeps it for compatibility).
  if (str(c.image) === '') out.push({ field: `${path}.image`, message: 'Required value' });
  const portNames = new Set<string>();
  for (const [i, p] of objects(c.ports).entries()) {
    const at = `${path}.ports[${i}]`;
    const port = p.containerPort;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > PORT_MAX) {
      out.push({ field: `${at}.containerPort`, message: `Invalid value: ${JSON.stringify(port ?? null)}: must be between 1 and ${PORT_MAX}, inclusive` });
    }
    if (p.hostPort !== undefined && (typeof p.hostPort !== 'number' || p.hostPort < 0 || p.hostPort > PORT_MAX)) {
      out.push({ field: `${at}.hostPort`, message: `Invalid value: ${JSON.stringify(p.hostPort)}: must be between 0 and ${PORT_MAX}, inclusive` });
    }
    if (p.protocol !== undefined && !PROTOCOLS.includes(str(p.protocol))) {
      out.push({ field: `${at}.protocol`, message: `Unsupported value: ${JSON.stringify(p.protocol)}: supported values: "SCTP", "TCP", "UDP"` });
    }
    const portName = str(p.name);
    if (portName !== '') {
      const problem = portNameProblem(portName);
      if (problem) out.push({ field: `${at}.name`, message: `Invalid value: ${JSON.stringify(portName)}: ${problem}` });
      else if (portNames.has(portName)) out.push({ field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(portName)}` });
      portNames.add(portName);
    }
  }
  for (const [i, e] of objects(c.env).entries()) {
    const problem = envVarNameProblem(str(e.name));
    if (problem)
      out.push({ field: `${path}.env[${i}].name`, message: problem === 'Required value' ? problem : `Invalid value: ${JSON.stringify(e.name)}: ${problem}` });
  }
  out.push(...resourcesErrors(c.resources, `${path}.resources`), ...moreContainerErrors(c, path));
  const mountPaths = new Set<string>();
  for (const [i, m] of objects(c.volumeMounts).entries()) {
    const at = `${path}.volumeMounts[${i}]`;
    if (!volumes.has(str(m.name))) out.push({ field: `${at}.name`, message: `Not found: ${JSON.stringify(str(m.name))}` });
    const mountPath = str(m.mountPath);
    if (mountPath === '') out.push({ field: `${at}.mountPath`, message: 'Required value' });
    else if (mountPaths.has(mountPath)) out.push({ field: `${at}.mountPath`, message: `Invalid value: ${JSON.stringify(mountPath)}: must be unique` });
    mountPaths.add(mountPath);
  }
  return out;
}

/** A pod spec in a workload's template: containers, volumes and the restart policies the workload allows. */
export function podSpecErrors(spec: unknown, path: string, restartPolicies: readonly string[], claimTemplates: readonly string[] = []): SchemaError[] {
  if (!isObject(spec)) return [{ field: path, message: 'Required value' }];
  const out: SchemaError[] = [];
  const volumes = new Set<string>(claimTemplates);
  for (const [i, v] of objects(spec.volumes).entries()) {
    const name = str(v.name);
    const problem = name === '' ? 'Required value' : dns1123LabelProblem(name);
    if (problem) out.push({ field: `${path}.volumes[${i}].name`, message: problem });
    else if (volumes.has(name) && !claimTemplates.includes(name))
      out.push({ field: `${path}.volumes[${i}].name`, message: `Duplicate value: ${JSON.stringify(name)}` });
    volumes.add(name);
  }
  const containers = objects(spec.containers);
  if (containers.length === 0) out.push({ field: `${path}.containers`, message: 'Required value' });
  const names = new Set<string>();
  for (const [list, items] of [
    ['initContainers', objects(spec.initContainers)],
    ['containers', containers],
  ] as const) {
    for (const [i, c] of items.entries()) {
      const at = `${path}.${list}[${i}]`;
      out.push(...containerErrors(c, at, volumes));
      const name = str(c.name);
      if (name !== '' && names.has(name)) out.push({ field: `${at}.name`, message: `Duplicate value: ${JSON.stringify(name)}` });
      names.add(name);
    }
  }
  out.push(...morePodSpecErrors(spec, path));
  const policy = str(spec.restartPolicy) || 'Always';
  if (!restartPolicies.includes(policy)) {
    out.push({
      field: `${path}.restartPolicy`,
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${restartPolicies.map((p) => `"${p}"`).join(', ')}`,
    });
  }
  return out;
}

function templateErrors(template: unknown, path: string, restartPolicies: readonly string[], claimTemplates: readonly string[] = []): SchemaError[] {
  if (!isObject(template)) return [{ field: path, message: 'Required value' }];
  const meta = isObject(template.metadata) ? template.metadata : {};
  return [
    ...labelErrors(meta.labels, `${path}.metadata.labels`),
    ...annotationErrors(meta.annotations, `${path}.metadata.annotations`),
    ...podSpecErrors(template.spec, `${path}.spec`, restartPolicies, claimTemplates),
  ];
}

function selectorErrors(selector: unknown, template: unknown, path: string): SchemaError[] {
  const matchLabels = isObject(selector) && isObject(selector.matchLabels) ? selector.matchLabels : {};
  if (Object.keys(matchLabels).length === 0) return [{ field: `${path}.selector`, message: 'Required value: empty selector is invalid for a workload' }];
  const labels = isObject(template) && isObject(template.metadata) && isObject(template.metadata.labels) ? template.metadata.labels : {};
  const matches = Object.entries(matchLabels).every(([k, v]) => labels[k] === v);
  return matches ? [] : [{ field: `${path}.template.metadata.labels`, message: 'Invalid value: `selector` does not match template `labels`' }];
}

function specErrors(o: Obj): SchemaError[] {
  const spec = isObject(o.spec) ? o.spec : {};
  switch (o.kind) {
    case 'StatefulSet': {
      const claims = objects(spec.volumeClaimTemplates).map((c) => str(isObject(c.metadata) ? c.metadata.name : ''));
      return [...selectorErrors(spec.selector, spec.template, 'spec'), ...templateErrors(spec.template, 'spec.template', ['Always'], claims)];
    }
    case 'Job':
      return templateErrors(spec.template, 'spec.template', ['OnFailure', 'Never']);
    case 'Service':
      return serviceErrors(spec);
    case 'ConfigMap':
      return configMapErrors(o);
    default:
      return [];
  }
}

function serviceErrors(spec: Obj): SchemaError[] {
  const out: SchemaError[] = [...labelErrors(spec.selector, 'spec.selector')];
  const ports = objects(spec.ports);
  for (const [i, p] of ports.entries()) {
    const port = p.port;
    if (typeof port !== 'number' || port < 1 || port > PORT_MAX)
      out.push({ field: `spec.ports[${i}].port`, message: `Invalid value: ${JSON.stringify(port ?? null)}: must be between 1 and ${PORT_MAX}, inclusive` });
    if (ports.length > 1 && str(p.name) === '') out.push({ field: `spec.ports[${i}].name`, message: 'Required value' });
  }
  return out;
}

function configMapErrors(o: Obj): SchemaError[] {
  const out: SchemaError[] = [];
  let bytes = 0;
  for (const field of ['data', 'binaryData'] as const) {
    const data = isObject(o[field]) ? o[field] : {};
    for (const [k, v] of Object.entries(data)) {
      const problem = configMapKeyProblem(k);
      if (problem) out.push({ field: `${field}[${k}]`, message: `Invalid value: ${JSON.stringify(k)}: ${problem}` });
      bytes += Buffer.byteLength(str(v));
    }
  }
  if (bytes > CONFIG_MAP_MAX_BYTES) out.push({ field: 'data', message: `Too long: may not be more than ${CONFIG_MAP_MAX_BYTES} bytes` });
  return out;
}

/**
 * The problems kube-apiserver would report when `object` (one object `kaito-ts render` prints) is
 * created; empty when it would be accepted. A child Workspace is admitted against the CRD with the
 * name the API server would generate from its generateName.
 */
export function workloadErrors(object: unknown): SchemaError[] {
  if (!isObject(object)) return [{ field: '<root>', message: 'must be an object' }];
  if (object.kind === 'Workspace') {
    const meta = isObject(object.metadata) ? object.metadata : {};
    const named = meta.name === undefined && typeof meta.generateName === 'string' ? { ...meta, name: `${meta.generateName}xxxxx` } : meta;
    return admit({ ...object, metadata: named }).errors;
  }
  const rule = NAME_RULE[str(object.kind)] ?? 'dns1123Subdomain';
  const meta = objectMetaErrors(object.metadata, { nameRule: rule, namespaced: true });
  return [...meta, ...specErrors(object)];
}

/** `Kind namespace/name` of an object render prints, for messages. */
export function objectRef(object: unknown): string {
  const o = isObject(object) ? object : {};
  const meta = isObject(o.metadata) ? o.metadata : {};
  const name = str(meta.name) || `${str(meta.generateName)}<generated>`;
  return `${str(o.kind)} ${str(meta.namespace) ? `${str(meta.namespace)}/` : ''}${name}`;
}
