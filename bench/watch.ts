// A namespace-wide watch that survives its stream ending: it simply watches again. Without a
// resourceVersion the API server first replays every object as ADDED, which the trackers treat as
// idempotent, so no event is ever lost between two streams.
import { Watch, type KubeConfig } from '@kubernetes/client-node';

export interface RunningWatch {
  stop(): void;
}

/** `query`: extra watch parameters such as a labelSelector. */
export function watchForever(kc: KubeConfig, path: string, onObject: (type: string, obj: unknown) => void, query: Record<string, string> = {}): RunningWatch {
  const w = new Watch(kc);
  let stopped = false;
  let current: AbortController | undefined;
  const start = (): void => {
    if (stopped) return;
    w.watch(
      path,
      { ...query, allowWatchBookmarks: true },
      (type, obj) => onObject(type, obj),
      () => {
        if (!stopped) setTimeout(start, 200);
      },
    )
      .then((ac) => {
        current = ac;
        if (stopped) ac.abort();
      })
      .catch(() => {
        if (!stopped) setTimeout(start, 1000);
      });
  };
  start();
  return {
    stop: () => {
      stopped = true;
      current?.abort();
    },
  };
}
