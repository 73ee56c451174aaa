// Hugging Face metadata for the workspaces that name a model outside KAITO's catalog, kept like an
// informer's cache: a pass reads it synchronously and never waits on the network. A miss starts one
// background fetch (one per endpoint, repo and revision, however many workspaces ask) and the pass
// reports "resolving"; when the fetch ends, every workspace that asked is enqueued. A result is kept
// for the life of the process, so a converged workspace makes no request. A failure is kept with a
// backoff: the workspaces are enqueued again when it is due (or at once when their token changed).
import type { HubModelFacts, HubModelState } from '../../catalog/model-generator.js';
import { fetchHubModel, HubReason, type HubFetch, type HubReasonValue, type HubRequest } from '../../runtime/hub-client.js';

/** Whose token a fetch uses: the Secret's namespace/name@resourceVersion ('' = anonymous). Never the value. */
export interface TokenRef {
  id: string;
  /** One GET of the Secret's HF_TOKEN, for this fetch only. */
  read: () => Promise<string | undefined>;
}

export interface HubModelsOptions {
  endpoint: string;
  timeoutMs?: number;
  /** Enqueue these workspace keys. */
  notify: (keys: string[]) => void;
  now?: () => number;
  fetch?: (r: HubRequest) => Promise<HubFetch>;
  /** At most this many fetches at once. */
  concurrency?: number;
}

interface Entry {
  result?:
    { ok: true; facts: HubModelFacts } | { ok: false; reason: HubReasonValue; message: string; at: number; retryAt: number; tokenId: string; attempts: number };
  inFlight: boolean;
  waiters: Set<string>;
  timer?: NodeJS.Timeout;
}

/** Backoff per reason: a missing or gated model waits longer than a network blip; at most 10 minutes. */
const BACKOFF_BASE_MS: Record<HubReasonValue, number> = {
  [HubReason.Timeout]: 5_000,
  [HubReason.Unreachable]: 5_000,
  [HubReason.NotFound]: 30_000,
  [HubReason.Gated]: 30_000,
  [HubReason.Malformed]: 60_000,
  [HubReason.Unsupported]: 60_000,
};
const BACKOFF_MAX_MS = 10 * 60_000;

export function hubBackoffMs(reason: HubReasonValue, attempts: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS[reason] * 2 ** Math.max(0, attempts - 1));
}

export class HubModels {
  private readonly entries = new Map<string, Entry>();
  private readonly queue: (() => void)[] = [];
  private running = 0;
  /** Requests sent so far (the benchmark reads it: 0 per idle minute once converged). */
  requests = 0;

  constructor(private readonly o: HubModelsOptions) {}

  get endpoint(): string {
    return this.o.endpoint;
  }

  /** What is known of `repo` for workspace `key`; starts a fetch on a miss or a due retry. */
  lookup(key: string, repo: string, token: TokenRef): HubModelState {
    const id = `${this.o.endpoint}|${repo.toLowerCase()}|main`;
    let entry = this.entries.get(id);
    if (!entry) this.entries.set(id, (entry = { inFlight: false, waiters: new Set() }));
    const r = entry.result;
    if (r?.ok) return { state: 'ready', facts: r.facts };
    entry.waiters.add(key);
    const now = this.now();
    if (!entry.inFlight && (!r || now >= r.retryAt || r.tokenId !== token.id)) this.start(entry, repo, token);
    if (r && !r.ok) return { state: 'failed', reason: r.reason, message: r.message, retryInMs: entry.inFlight ? 0 : Math.max(0, r.retryAt - now) };
    return { state: 'resolving', endpoint: this.o.endpoint };
  }

  /** Stop the retry timers (shutdown). */
  close(): void {
    for (const e of this.entries.values()) clearTimeout(e.timer);
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private start(entry: Entry, repo: string, token: TokenRef): void {
    entry.inFlight = true;
    clearTimeout(entry.timer);
    const run = async () => {
      let fetched: HubFetch;
      try {
        const value = token.id ? await token.read() : undefined;
        fetched = await (this.o.fetch ?? fetchHubModel)({
          endpoint: this.o.endpoint,
          repo,
          ...(value ? { token: value } : {}),
          ...(this.o.timeoutMs ? { timeoutMs: this.o.timeoutMs } : {}),
        });
      } catch (err) {
        // Reading the Secret failed (the API server): a network blip, retried soon.
        fetched = { ok: false, reason: HubReason.Unreachable, message: `reading the model access Secret failed: ${(err as Error).message}`, requests: 0 };
      }
      this.requests += fetched.requests;
      this.finish(entry, fetched, token.id);
    };
    const go = () => {
      this.running++;
      void run().finally(() => {
        this.running--;
        this.queue.shift()?.();
      });
    };
    if (this.running < (this.o.concurrency ?? 4)) go();
    else this.queue.push(go);
  }

  private finish(entry: Entry, fetched: HubFetch, tokenId: string): void {
    entry.inFlight = false;
    if (fetched.ok) {
      entry.result = { ok: true, facts: fetched.facts };
    } else {
      const previous = entry.result && !entry.result.ok ? entry.result : undefined;
      const attempts = previous && previous.reason === fetched.reason ? previous.attempts + 1 : 1;
      const at = this.now();
      const retryAt = at + hubBackoffMs(fetched.reason, attempts);
      entry.result = { ok: false, reason: fetched.reason, message: fetched.message, at, retryAt, tokenId, attempts };
      // When the retry is due, the workspaces come back and their pass starts it.
      entry.timer = setTimeout(() => this.wake(entry), retryAt - at);
      entry.timer.unref();
    }
    this.wake(entry);
  }

  private wake(entry: Entry): void {
    const keys = [...entry.waiters];
    entry.waiters.clear();
    if (keys.length) this.o.notify(keys);
  }
}
