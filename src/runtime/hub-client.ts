// Reads one model's metadata from a Hugging Face endpoint (huggingface.co or a mirror): the file list
// and config.json, the two reads KAITO v0.12.0's generator makes for an id outside its catalog
// (`<endpoint>/api/models/<repo>/tree/main?recursive=true`, `<endpoint>/<repo>/resolve/main/config.json`,
// `params.json` for Mistral-format repositories without a config.json). node:http(s) only: the
// operator image runs Node without WebAssembly, which fetch needs. Every failure is a value with its
// own reason; nothing throws. The token is sent, never kept or logged.
import http from 'node:http';
import https from 'node:https';
import { parseModelConfig, weightFilesOf, type HubModelFacts } from '../catalog/model-generator.js';

export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';
/** KAITO v0.12's HTTP client timeout per request. */
export const DEFAULT_HUB_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;
const TREE_LIMIT_BYTES = 32 * 2 ** 20;
const CONFIG_LIMIT_BYTES = 4 * 2 ** 20;

/** Condition reasons of a failed lookup (docs/catalogs.md). */
export const HubReason = {
  Gated: 'HuggingFaceModelGated',
  NotFound: 'HuggingFaceModelNotFound',
  Timeout: 'HuggingFaceTimeout',
  Unreachable: 'HuggingFaceUnreachable',
  Malformed: 'HuggingFaceMetadataInvalid',
  Unsupported: 'HuggingFaceModelUnsupported',
} as const;
export type HubReasonValue = (typeof HubReason)[keyof typeof HubReason];

export type HubFetch = { ok: true; facts: HubModelFacts; requests: number } | { ok: false; reason: HubReasonValue; message: string; requests: number };

export interface HubRequest {
  endpoint: string;
  repo: string;
  /** HF_TOKEN of the workspace's model access Secret; empty: anonymous. */
  token?: string;
  timeoutMs?: number;
}

/** `HF_ENDPOINT` as the Hugging Face tools read it: the flag, else the environment, else huggingface.co; no trailing slash. */
export function resolveHubEndpoint(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const raw = (flag ?? env['HF_ENDPOINT'] ?? '').trim() || DEFAULT_HF_ENDPOINT;
  const url = new URL(raw); // throws a clear "Invalid URL" for a bad flag
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`Hugging Face endpoint ${raw}: only http and https are supported`);
  return raw.replace(/\/+$/, '');
}

type Got = { ok: true; status: number; body: string } | { ok: false; reason: HubReasonValue; message: string };

/** One GET, following redirects (the token goes only to the endpoint's own host), the body capped. */
function get(url: URL, endpointHost: string, token: string | undefined, timeoutMs: number, limit: number, redirects = 0): Promise<Got> {
  return new Promise((resolve) => {
    const lib = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'kaito-ts' };
    if (token && url.host === endpointHost) headers['authorization'] = `Bearer ${token}`;
    const req = lib.get(url, { headers, timeout: timeoutMs }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS)
          return resolve({ ok: false, reason: HubReason.Unreachable, message: `more than ${MAX_REDIRECTS} redirects from ${url.origin}` });
        return resolve(get(new URL(location, url), endpointHost, token, timeoutMs, limit, redirects + 1));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          req.destroy();
          resolve({ ok: false, reason: HubReason.Malformed, message: `${url.pathname}: answer larger than ${limit} bytes` });
        } else chunks.push(chunk);
      });
      res.on('end', () => resolve({ ok: true, status, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => resolve({ ok: false, reason: HubReason.Unreachable, message: `${url.origin}: ${err.message}` }));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ ok: false, reason: HubReason.Timeout, message: `${url.origin} did not answer ${url.pathname} within ${timeoutMs / 1000}s` });
    });
    req.on('error', (err) => resolve({ ok: false, reason: HubReason.Unreachable, message: `${url.origin}: ${err.message}` }));
  });
}

function statusFailure(status: number, repo: string, endpoint: string, anonymous: boolean, what: string): { reason: HubReasonValue; message: string } {
  if (status === 401 || status === 403) {
    const how = anonymous
      ? 'set inference.preset.presetOptions.modelAccessSecret to a Secret whose HF_TOKEN may read it'
      : 'the HF_TOKEN of the model access Secret may not read it (accept the model licence on Hugging Face, or use another token)';
    return { reason: HubReason.Gated, message: `Hugging Face model ${repo} is gated or private (HTTP ${status} for ${what} at ${endpoint}): ${how}` };
  }
  if (status === 404)
    return { reason: HubReason.NotFound, message: `Hugging Face model ${repo} was not found at ${endpoint} (HTTP 404 for ${what}): check the id` };
  return { reason: HubReason.Unreachable, message: `${endpoint} answered HTTP ${status} for ${what} of ${repo}` };
}

/** The file list and config.json of `repo`, reduced to what v0.12's generator sizes from. */
export async function fetchHubModel(r: HubRequest): Promise<HubFetch> {
  const timeoutMs = r.timeoutMs ?? DEFAULT_HUB_TIMEOUT_MS;
  const base = new URL(r.endpoint);
  let requests = 0;
  const fetchText = async (path: string, limit: number): Promise<Got> => {
    requests++;
    return get(new URL(`${base.pathname.replace(/\/+$/, '')}${path}`, base), base.host, r.token, timeoutMs, limit);
  };
  const fail = (f: { reason: HubReasonValue; message: string }): HubFetch => ({ ok: false, ...f, requests });
  const anonymous = !r.token;

  const tree = await fetchText(`/api/models/${r.repo}/tree/main?recursive=true`, TREE_LIMIT_BYTES);
  if (!tree.ok) return fail(tree);
  if (tree.status !== 200) return fail(statusFailure(tree.status, r.repo, r.endpoint, anonymous, 'the file list'));
  const files = parseFileList(tree.body);
  if (!files) return fail({ reason: HubReason.Malformed, message: `the file list of ${r.repo} from ${r.endpoint} is not a JSON array of {path, size}` });
  const weights = weightFilesOf(files);
  if (weights.count === 0) return fail({ reason: HubReason.Malformed, message: `Hugging Face model ${r.repo} has no .safetensors or .bin files` });

  let config = await fetchText(`/${r.repo}/resolve/main/config.json`, CONFIG_LIMIT_BYTES);
  if (weights.mistralFormat && (!config.ok || config.status !== 200)) config = await fetchText(`/${r.repo}/resolve/main/params.json`, CONFIG_LIMIT_BYTES);
  if (!config.ok) return fail(config);
  if (config.status !== 200) return fail(statusFailure(config.status, r.repo, r.endpoint, anonymous, 'config.json'));
  const parsed = parseModelConfig(config.body);
  if (!parsed) return fail({ reason: HubReason.Malformed, message: `config.json of ${r.repo} from ${r.endpoint} is not a JSON object` });
  return { ok: true, facts: { weightBytes: weights.bytes, weightFiles: weights.count, mistralFormat: weights.mistralFormat, config: parsed }, requests };
}

function parseFileList(body: string): { path: string; size: number }[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const files: { path: string; size: number }[] = [];
  for (const item of parsed) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { path, size } = item as { path?: unknown; size?: unknown };
    if (typeof path !== 'string') return undefined;
    // Go decodes a missing or non-numeric size as 0 (or fails on a string): a directory has none.
    if (size !== undefined && typeof size !== 'number') return undefined;
    files.push({ path, size: typeof size === 'number' ? size : 0 });
  }
  return files;
}
