// The ONE place where Kubernetes API failures are classified. Everything that talks to the API
// server (our transport, the watch stream, or client-node's generated APIs) funnels its errors
// through `toKubeError`, so callers branch on `kind`/`retryable`, never on raw HTTP codes.

export type KubeErrorKind =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Invalid'
  | 'BadRequest'
  | 'TooManyRequests'
  | 'ServerTimeout'
  | 'ServerError'
  | 'Network'
  | 'Aborted'
  | 'Unknown';

/** The subset of a metav1.Status the API server sends with every failure. */
export interface KubeStatus {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

const RETRYABLE: ReadonlySet<KubeErrorKind> = new Set(['TooManyRequests', 'ServerTimeout', 'ServerError', 'Network']);

// Transport failures that a later attempt may not see: connection refused/reset, DNS hiccups, timeouts.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    readonly kind: KubeErrorKind,
    message: string,
    readonly status?: number,
    readonly reason?: string,
    readonly retryAfterMs?: number,
    readonly details?: KubeStatus['details'],
  ) {
    super(message);
  }
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** Maps an HTTP status code plus the Status `reason` to our error kind. */
export function kindOf(status: number | undefined, reason?: string): KubeErrorKind {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 408:
      return 'ServerTimeout';
    // 409 carries two different stories: the object exists already, or someone wrote first.
    case 409:
      return reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict';
    case 410:
      return 'Gone';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return reason === 'ServerTimeout' ? 'ServerTimeout' : 'ServerError';
    case 504:
      return 'ServerTimeout';
    default:
      if (status !== undefined && status >= 500) return 'ServerError';
      if (status !== undefined && status >= 400) return 'BadRequest';
      return 'Unknown';
  }
}

/** Parses a Status body (string, Buffer or object); tolerates junk. */
export function parseStatus(body: unknown): KubeStatus | undefined {
  try {
    const value: unknown = typeof body === 'string' || Buffer.isBuffer(body) ? JSON.parse(body.toString()) : body;
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function fromStatus(status: number | undefined, body: unknown, retryAfterHeader?: string | null): KubeApiError {
  const s = parseStatus(body);
  const code = status ?? s?.code;
  const headerSeconds = Number(retryAfterHeader);
  const retryAfterS = Number.isFinite(headerSeconds) && headerSeconds > 0 ? headerSeconds : s?.details?.retryAfterSeconds;
  const message = s?.message || (typeof body === 'string' && body.length < 500 ? body : '') || `HTTP ${code ?? '?'}`;
  return new KubeApiError(kindOf(code, s?.reason), message, code, s?.reason, retryAfterS ? retryAfterS * 1000 : undefined, s?.details);
}

/** Normalises anything thrown by an API call. Idempotent: a KubeApiError comes back unchanged. */
export function toKubeError(err: unknown): KubeApiError {
  if (err instanceof KubeApiError) return err;
  if (isApiException(err)) {
    const headers = (err.headers ?? {}) as Record<string, string>;
    return fromStatus(err.code, err.body, headers['retry-after']);
  }
  const e = err as { statusCode?: number; code?: string | number; name?: string; message?: string } | undefined;
  if (typeof e?.statusCode === 'number') return fromStatus(e.statusCode, undefined);
  const code = typeof e?.code === 'string' ? e.code : undefined;
  // The caller gave up (its AbortSignal fired): neither the server's answer nor a network fault.
  if (e?.name === 'AbortError' || code === 'ABORT_ERR') return new KubeApiError('Aborted', `request aborted${e?.message ? `: ${e.message}` : ''}`);
  if ((code && NETWORK_CODES.has(code)) || e?.name === 'TimeoutError' || e?.name === 'FetchError') {
    return new KubeApiError('Network', `${code ?? e?.name}: ${e?.message ?? ''}`.trim());
  }
  return new KubeApiError('Unknown', e?.message ?? String(err));
}

export const isNotFound = (err: unknown): boolean => toKubeError(err).kind === 'NotFound';
export const isAlreadyExists = (err: unknown): boolean => toKubeError(err).kind === 'AlreadyExists';
export const isConflict = (err: unknown): boolean => toKubeError(err).kind === 'Conflict';
export const isForbidden = (err: unknown): boolean => toKubeError(err).kind === 'Forbidden';
/** The call was cancelled by its AbortSignal (a stopping controller, a reconcile's deadline): nothing to report. */
export const isAborted = (err: unknown): boolean => toKubeError(err).kind === 'Aborted';
// Server-side apply reports objects it cannot convert as 500 InternalError (kube-apiserver 1.36: a
// duplicate list-map key, a quantity "abc"), though no retry can change the answer.
const CONVERSION_REFUSAL = /^failed to (create typed patch object|convert new object)\b/;

/**
 * The server refused the object itself: 422 Invalid (validation), 400 BadRequest, or server-side
 * apply's typed conversion failing (sent as 500). Sending the same object again cannot pass.
 */
export const isRefused = (err: unknown): boolean => {
  const e = toKubeError(err);
  return e.kind === 'Invalid' || e.kind === 'BadRequest' || (e.status === 500 && CONVERSION_REFUSAL.test(e.message));
};

/**
 * client-node's ApiException, recognised by shape: importing the class would load client-node's
 * whole generated API into the operator process (see cluster-access.ts).
 */
function isApiException(err: unknown): err is { code: number; body: unknown; headers?: unknown } {
  return err instanceof Error && err.name !== 'KubeApiError' && typeof (err as { code?: unknown }).code === 'number' && 'body' in err;
}

/** For `.catch()`: a read or delete whose object is already gone has nothing left to do. */
export function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}

/** For `.catch()` on a create whose object may exist already (created by us or a racing writer). */
export function ignoreAlreadyExists(err: unknown): void {
  if (!isAlreadyExists(err)) throw err;
}

/**
 * For `.catch()` on a UID- or resourceVersion-guarded write: the object is gone (404) or is no longer
 * the one we meant (409); either way there is nothing left to do, and a watch event brings us back.
 */
export function ignoreGone(err: unknown): void {
  if (!isNotFound(err) && !isConflict(err)) throw err;
}
