// Why a workspace cannot be built, as data: the controller turns it into a condition, render into exit 2.
export interface Problem {
  /** Path in the Workspace the problem is about, e.g. `inference.preset.name`. */
  field: string;
  message: string;
  /** CamelCase reason, usable as a condition reason. */
  reason: string;
}

export function problem(field: string, reason: string, message: string): Problem {
  return { field, reason, message };
}
