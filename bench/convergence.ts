// Tracks when each workspace's StatefulSet first exists and when each workspace is first InferenceReady=True,
// from watch events. Pure: the caller passes the event time, so tests drive it with plain numbers.
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../src/api/types.js';

export function isInferenceReady(ws: Pick<Workspace, 'status'>): boolean {
  return ws.status?.conditions?.some((c) => c.type === 'InferenceReady' && c.status === 'True') ?? false;
}

export class ConvergenceTracker {
  private readonly stsSeen = new Map<string, number>();
  private readonly readySeen = new Map<string, number>();
  private waiters: (() => void)[] = [];

  constructor(private readonly expected: ReadonlySet<string>) {}

  onStatefulSet(sts: V1StatefulSet, at: number): void {
    const name = sts.metadata?.name;
    if (name && this.expected.has(name) && !this.stsSeen.has(name)) this.stsSeen.set(name, at);
  }

  onWorkspace(ws: Workspace, at: number): void {
    const name = ws.metadata.name;
    if (!name || !this.expected.has(name) || this.readySeen.has(name) || !isInferenceReady(ws)) return;
    this.readySeen.set(name, at);
    if (this.allReady()) {
      for (const w of this.waiters) w();
      this.waiters = [];
    }
  }

  allReady(): boolean {
    return this.readySeen.size === this.expected.size;
  }

  /** When the last StatefulSet appeared, or undefined while one is missing. */
  allStatefulSetsAt(): number | undefined {
    return this.stsSeen.size === this.expected.size ? Math.max(...this.stsSeen.values()) : undefined;
  }

  allReadyAt(): number | undefined {
    return this.allReady() ? Math.max(...this.readySeen.values()) : undefined;
  }

  /** When workspace `name`'s StatefulSet / InferenceReady=True was first seen. */
  statefulSetAt(name: string): number | undefined {
    return this.stsSeen.get(name);
  }

  readyAt(name: string): number | undefined {
    return this.readySeen.get(name);
  }

  progress(): { statefulSets: number; ready: number; total: number } {
    return { statefulSets: this.stsSeen.size, ready: this.readySeen.size, total: this.expected.size };
  }

  /** Resolves once every workspace was seen ready (at once when already so). */
  whenAllReady(): Promise<void> {
    if (this.allReady()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
