// supervisor.json: what the supervisor restarted and why (written by it, read by `simcluster status`).
import { readFileSync } from 'node:fs';
import type { ComponentName } from '../components.js';
import type { MemoryLimits } from '../supervision.js';

export interface RestartRecord {
  at: string;
  reason: 'exited' | 'memory';
  detail: string;
  oldPid: number;
  newPid: number;
}

export interface SupervisorState {
  pid: number;
  startedAt: string;
  memoryLimits: MemoryLimits;
  components: Partial<Record<ComponentName, { restarts: number; last?: RestartRecord }>>;
}

export function readSupervisorState(path: string): SupervisorState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as SupervisorState;
  } catch {
    return undefined;
  }
}
