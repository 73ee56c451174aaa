// Status-code tests on @kubernetes/client-node 1.4 errors (ApiException carries `.code`).
function code(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number' ? err.code : undefined;
}

export const isConflict = (err: unknown): boolean => code(err) === 409;
export const isNotFound = (err: unknown): boolean => code(err) === 404;
export const isForbidden = (err: unknown): boolean => code(err) === 403;
