// events.k8s.io/v1 Event recorder with client-side aggregation (api-conventions "Events"):
// the same (object, type, reason, action, note) inside the window becomes one Event whose
// `series.count` grows, and the series is patched at most once per `patchIntervalMs`, so a
// flapping error costs one write per interval, not one per reconcile.
import { hostname } from 'node:os';
import type { KubernetesObject } from '@kubernetes/client-node';
import { MERGE_PATCH, type KubeClient } from './client.js';
import { isAborted, isNotFound } from './errors.js';
import { silentLogger, type Logger } from './log.js';
import { Resources } from './resources.js';
import { isoMillis } from './timestamps.js';

export type EventType = 'Normal' | 'Warning';

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

export interface EventBody {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: EventType;
  regarding: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string; resourceVersion?: string };
  series?: EventSeries;
}

/** Where events go; the default writes through KubeClient, tests use a fake. `signal` aborts the write. */
export interface EventSink {
  create(event: EventBody, signal?: AbortSignal): Promise<void>;
  patchSeries(namespace: string, name: string, series: EventSeries, signal?: AbortSignal): Promise<void>;
}

export function clientEventSink(base: KubeClient): EventSink {
  const bound = (signal: AbortSignal | undefined) => (signal ? base.withSignal(signal) : base);
  return {
    create: async (event, signal) => {
      const client = bound(signal);
      await client.create(Resources.events, event);
    },
    patchSeries: async (namespace, name, series, signal) => {
      const client = bound(signal);
      await client.patch(Resources.events, { namespace, name }, { series }, MERGE_PATCH);
    },
  };
}

export interface EventRecorderOptions {
  sink: EventSink;
  reportingController?: string;
  /** Pod name in a cluster (HOSTNAME), the machine name otherwise. */
  reportingInstance?: string;
  /** Identical events closer than this extend the series (client-go: 6 min). */
  windowMs?: number;
  /** Minimum time between two series patches of one event. */
  patchIntervalMs?: number;
  now?: () => number;
  log?: Logger;
}

interface SeriesEntry {
  namespace: string;
  name: string;
  count: number;
  /** count already written to the server */
  written: number;
  lastObservedAt: number;
  lastPatchAt: number;
  /** serialises writes for one key so concurrent identical events never create twins */
  chain: Promise<void>;
}

const MAX_NOTE = 1024;
const MAX_ENTRIES = 4096;

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits (a plain Date is rejected). */
export const microTime = (ms: number): string => isoMillis(ms).replace(/\.(\d{3})Z$/, '.$1000Z');

export class EventRecorder {
  private entries = new Map<string, SeriesEntry>();
  private readonly o: Required<Omit<EventRecorderOptions, 'sink'>> & { sink: EventSink };
  private signal?: AbortSignal;

  constructor(opts: EventRecorderOptions) {
    this.o = {
      reportingController: 'kaito-ts',
      reportingInstance: process.env.HOSTNAME || hostname(),
      windowMs: 6 * 60_000,
      patchIntervalMs: 30_000,
      now: Date.now,
      log: silentLogger,
      ...opts,
    };
  }

  /**
   * The same recorder (same series, same aggregation) whose writes carry `signal`: a write started
   * through it is aborted with the signal, or not sent when it has already fired. An aborted create
   * forgets its series, so the next occurrence starts a new one.
   */
  withSignal(signal: AbortSignal): EventRecorder {
    const bound = new EventRecorder(this.o);
    bound.entries = this.entries;
    bound.signal = signal;
    return bound;
  }

  /**
   * Records an event about `regarding`. Never throws: events are best effort and must not fail a
   * reconcile. Resolves when the write (if any) is done.
   */
  event(regarding: KubernetesObject, type: EventType, reason: string, note: string, action = reason): Promise<void> {
    const key = [regarding.metadata?.uid ?? '', regarding.kind, regarding.metadata?.namespace, regarding.metadata?.name, type, reason, action, note].join(
      '\u0000',
    );
    const now = this.o.now();
    let entry = this.entries.get(key);
    if (entry && now - entry.lastObservedAt > this.o.windowMs) entry = undefined;
    if (!entry) {
      this.evictIfFull(now);
      const namespace = regarding.metadata?.namespace || 'default';
      const name = `${regarding.metadata?.name ?? 'object'}.${now.toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`;
      const body = this.build(regarding, namespace, name, type, reason, note.slice(0, MAX_NOTE), action, now);
      entry = { namespace, name, count: 1, written: 0, lastObservedAt: now, lastPatchAt: now, chain: Promise.resolve() };
      this.entries.set(key, entry);
      const e = entry;
      return this.enqueue(e, async () => {
        await this.o.sink.create(body, this.signal);
        e.written = 1;
      });
    }
    entry.count++;
    entry.lastObservedAt = now;
    if (now - entry.lastPatchAt < this.o.patchIntervalMs) return entry.chain; // folded into the next patch
    entry.lastPatchAt = now;
    const e = entry;
    return this.enqueue(e, async () => {
      if (e.written === 0) return; // the create failed; nothing to extend
      const count = e.count;
      await this.o.sink.patchSeries(e.namespace, e.name, { count, lastObservedTime: microTime(e.lastObservedAt) }, this.signal);
      e.written = count;
    });
  }

  /** Events observed but not yet written (for tests and shutdown logs). */
  pendingCount(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.count - e.written;
    return n;
  }

  private enqueue(entry: SeriesEntry, write: () => Promise<void>): Promise<void> {
    entry.chain = entry.chain.then(write).catch((err: unknown) => {
      // The event was garbage-collected (1 h TTL), or its create was aborted: start a new series next time.
      if (isNotFound(err) || (isAborted(err) && entry.written === 0)) for (const [k, v] of this.entries) if (v === entry) this.entries.delete(k);
      this.o.log.error({ event: entry.name, error: err instanceof Error ? err.message : String(err) }, 'event write failed');
    });
    return entry.chain;
  }

  private evictIfFull(now: number): void {
    if (this.entries.size < MAX_ENTRIES) return;
    for (const [k, v] of this.entries) if (now - v.lastObservedAt > this.o.windowMs) this.entries.delete(k);
    // Still full: drop the oldest (Map keeps insertion order).
    while (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }

  private build(
    regarding: KubernetesObject,
    namespace: string,
    name: string,
    type: EventType,
    reason: string,
    note: string,
    action: string,
    now: number,
  ): EventBody {
    const m = regarding.metadata ?? {};
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: microTime(now),
      reportingController: this.o.reportingController,
      reportingInstance: this.o.reportingInstance,
      action,
      reason,
      note,
      type,
      regarding: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: m.name,
        namespace: m.namespace,
        uid: m.uid,
        resourceVersion: m.resourceVersion,
      },
    };
  }
}
