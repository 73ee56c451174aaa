import { CliError, type CliIO } from '../errors.js';

// Placeholder until the owning component lands.
export async function simcluster(_args: string[], _io: CliIO): Promise<number> {
  throw new CliError('"simcluster" is not available yet', 1);
}
