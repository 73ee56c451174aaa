// Container image references, checked with the grammar of distribution/reference (what KAITO's
// reference.ParseDockerRef accepts) and normalised the way docker does (`foo` → docker.io/library/foo:latest).
// One regex serves the CRD's CEL rule and the code, so both accept exactly the same strings.

const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}';

/** RE2- and JavaScript-compatible. */
export const IMAGE_REF_REGEX = `^(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::${TAG})?(?:@${DIGEST})?$`;
const IMAGE_REF = new RegExp(IMAGE_REF_REGEX);

/** distribution/reference's limit on the name part. */
export const IMAGE_NAME_MAX = 255;

export function isValidImageRef(ref: string): boolean {
  const name = ref.split('@')[0]!.replace(/:[\w][\w.-]{0,127}$/, '');
  return IMAGE_REF.test(ref) && name.length <= IMAGE_NAME_MAX;
}

/**
 * docker.io/library/ for a bare name, docker.io/ for a first component that is not a registry,
 * `:latest` when there is neither tag nor digest. A reference that does not parse is returned as is
 * (KAITO's scripts do the same).
 */
export function normalizeImageRef(ref: string): string {
  if (!isValidImageRef(ref)) return ref;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const hasRegistry = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  let full = ref;
  if (!hasRegistry) full = slash < 0 ? `docker.io/library/${ref}` : `docker.io/${ref}`;
  const lastPart = full.slice(full.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !full.includes('@')) full = `${full}:latest`;
  return full;
}
