// Hugging Face metadata for `render` and `diff`: the operator's own cache (HubModels) and lookup, but
// awaited, since a CLI run has nothing else to do meanwhile. One read per repo for the whole run,
// however many workspaces name it; a failure is kept for the run too (read again only for a
// workspace whose token differs, as the operator does).
import type { HubModelState } from '../catalog/model-generator.js';
import { HubModels } from '../controllers/workspace/hub-models.js';
import { hubEndpointFlag } from '../manager/options.js';
import { positiveDurationFlag } from '../runtime/duration.js';
import { DEFAULT_HUB_TIMEOUT_MS } from '../runtime/hub-client.js';
import { CliError } from './command-io.js';

export const HUB_FLAGS = { 'hf-endpoint': { type: 'string' }, 'hf-timeout': { type: 'string' } } as const;

export const HUB_USAGE = `--hf-endpoint URL: the Hugging Face endpoint (or mirror) read for model ids outside KAITO's
catalog, as the operator's flag (else HF_ENDPOINT, else https://huggingface.co); --hf-timeout D: per
request (default 30s).`;

type Lookup = ReadonlyMap<string, HubModelState>;

export class CliHub {
  readonly models: HubModels;
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(endpoint: string, timeoutMs: number) {
    this.models = new HubModels({ endpoint, timeoutMs, notify: (keys) => keys.forEach((k) => this.wake(k)) });
  }

  /** The hub flags of `render` and `diff`; a bad value is bad input (exit 2). */
  static fromFlags(values: { 'hf-endpoint'?: string; 'hf-timeout'?: string }, env: NodeJS.ProcessEnv = process.env): CliHub {
    try {
      return new CliHub(hubEndpointFlag(values['hf-endpoint'], env), positiveDurationFlag('hf-timeout', values['hf-timeout'], DEFAULT_HUB_TIMEOUT_MS));
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  }

  get endpoint(): string {
    return this.models.endpoint;
  }

  /** Requests sent to the endpoint so far. */
  get requests(): number {
    return this.models.requests;
  }

  /** What `ask` (workspace `key`'s lookup in the cache) answers once no read is under way for it. */
  async settled(key: string, ask: (models: HubModels) => Lookup): Promise<Lookup> {
    const done = new Promise<void>((resolve) => this.waiting.set(key, [...(this.waiting.get(key) ?? []), resolve]));
    const first = ask(this.models);
    if (!pending(first)) {
      this.waiting.delete(key);
      return first;
    }
    await done;
    return ask(this.models);
  }

  /** Stops the retry timers of failed reads. */
  close(): void {
    this.models.close();
  }

  private wake(key: string): void {
    const waiters = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    for (const w of waiters) w();
  }
}

/** Still being read: resolving, or an earlier failure being read again (its retry is due now). */
function pending(lookup: Lookup): boolean {
  return [...lookup.values()].some((s) => s.state === 'resolving' || (s.state === 'failed' && s.retryInMs === 0));
}

/** The failed read of a settled lookup, if any. */
export function hubFailure(lookup: Lookup | undefined): { reason: string; message: string } | undefined {
  for (const s of lookup?.values() ?? []) if (s.state === 'failed') return { reason: s.reason, message: s.message };
  return undefined;
}
