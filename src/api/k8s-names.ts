// The name and value rules of Kubernetes' apimachinery (validation.IsDNS1123Label, IsDNS1123Subdomain,
// IsDNS1035Label, IsQualifiedName, IsValidLabelValue, IsCIdentifier-free env names, IANA port names)
// as kube-apiserver applies them to the objects kaito-ts writes. Each returns the problem in a short
// sentence, or undefined when the value is valid.
import { DNS1123_LABEL_MAX, DNS1123_LABEL_REGEX, DNS1123_SUBDOMAIN_MAX, DNS1123_SUBDOMAIN_REGEX, Msg } from './messages.js';

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_REGEX}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_REGEX}$`);
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const IANA_SVC_NAME = /^[-a-z0-9]+$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

const tooLong = (max: number) => `must be no more than ${max} characters`;

export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length > DNS1123_LABEL_MAX) return tooLong(DNS1123_LABEL_MAX);
  return DNS1123_LABEL.test(value) ? undefined : Msg.labelFormat;
}

export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length > DNS1123_SUBDOMAIN_MAX) return tooLong(DNS1123_SUBDOMAIN_MAX);
  return DNS1123_SUBDOMAIN.test(value) ? undefined : Msg.subdomainFormat;
}

/** Service names: a DNS-1035 label (starts with a letter). */
export function dns1035LabelProblem(value: string): string | undefined {
  if (value.length > DNS1123_LABEL_MAX) return tooLong(DNS1123_LABEL_MAX);
  return DNS1035_LABEL.test(value)
    ? undefined
    : "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
}

const namePartProblem = (name: string): string | undefined => {
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return `name part ${tooLong(63)}`;
  return QUALIFIED_NAME_PART.test(name)
    ? undefined
    : "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
};

/** Label and annotation keys, resource names: `[prefix/]name`, the prefix a DNS subdomain. */
export function qualifiedNameProblem(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length > 2) return "a qualified name must be a name part, optionally prefixed by a DNS subdomain and '/' (e.g. 'example.com/MyName')";
  if (parts.length === 2) {
    const [prefix, name] = parts as [string, string];
    if (prefix.length === 0) return 'prefix part must be non-empty';
    const bad = dns1123SubdomainProblem(prefix);
    if (bad) return `prefix part ${bad}`;
    return namePartProblem(name);
  }
  return namePartProblem(value);
}

export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return tooLong(63);
  return LABEL_VALUE.test(value)
    ? undefined
    : "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
}

/** Named ports: at most 15 characters, lower case letters, digits and '-', at least one letter, no '--' and no '-' at either end. */
export function portNameProblem(value: string): string | undefined {
  if (value.length > 15) return tooLong(15);
  if (!IANA_SVC_NAME.test(value)) return 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)';
  if (value.includes('--')) return 'must not contain consecutive hyphens';
  if (!/[a-z]/.test(value)) return 'must contain at least one letter (a-z)';
  if (value.startsWith('-') || value.endsWith('-')) return 'must not begin or end with a hyphen';
  return undefined;
}

/** ConfigMap and Secret data keys. */
export function configMapKeyProblem(value: string): string | undefined {
  if (value.length > DNS1123_SUBDOMAIN_MAX) return tooLong(DNS1123_SUBDOMAIN_MAX);
  if (value === '.' || value === '..' || value.startsWith('..')) return "must not be '.' or '..' or start with '..'";
  return CONFIG_MAP_KEY.test(value) ? undefined : "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
}

/** Environment variable names (Kubernetes ≥ 1.34: any printable ASCII character but '='). */
export function envVarNameProblem(value: string): string | undefined {
  if (value.length === 0) return 'Required value';
  return /^[\x20-\x3c\x3e-\x7e]+$/.test(value) ? undefined : "a valid environment variable name must consist only of printable ASCII characters other than '='";
}
