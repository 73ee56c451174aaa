// `--restart`: stop the controller over its converged workspaces and start it again with the same
// command line, scraping its metrics endpoint every 50 ms from the spawn on (bench/restart.ts reads them).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpGetText, startController, type RunningController } from './child.js';
import type { Launch } from './controllers.js';
import { windowWrites } from './inferenceset.js';
import { clockTicksPerSecond } from './proc.js';
import type { CountingProxy } from './proxy.js';
import { RestartClock, restartFigures, type RestartFigures } from './restart.js';
import { settle } from './settle.js';

const SCRAPE_MS = 50;
/** Every workspace must have had its pass within this long after the spawn. */
const PASSES_TIMEOUT_MS = 600_000;

export interface RestartRun {
  launch: Launch;
  logFile: string;
  readyUrl: string;
  metricsUrl: string;
  proxy: CountingProxy;
  workspaces: number;
  idleSeconds: number;
  log: (line: string) => void;
}

/** Stops `ctl`, starts the controller again and measures it; returns the figures and the new process. */
export async function restartController(ctl: RunningController, run: RestartRun): Promise<{ figures: RestartFigures; ctl: RunningController }> {
  await ctl.stop();
  run.log(`stopped; starting it again over ${run.workspaces} converged workspaces (log ${run.logFile})`);
  const before = run.proxy.byVerbAndResource();
  const clock = new RestartClock(run.workspaces);
  const t0 = performance.now();
  const at = (): number => (performance.now() - t0) / 1000;
  let scraping = true;
  const scraper = (async () => {
    while (scraping && !clock.done()) {
      const sent = at();
      clock.observe(sent, await httpGetText(run.metricsUrl, 1000));
      await sleep(SCRAPE_MS);
    }
  })();
  let readyAt: number | undefined;
  let next: RunningController;
  try {
    next = await startController(run.launch, run.logFile, run.readyUrl);
    readyAt = at();
    for (const deadline = Date.now() + PASSES_TIMEOUT_MS; !clock.done() && !next.exited() && Date.now() < deadline;) await sleep(SCRAPE_MS);
  } finally {
    scraping = false;
    await scraper;
  }
  if (!clock.done()) run.log(`the workspace controller made fewer than ${run.workspaces} passes within ${PASSES_TIMEOUT_MS / 1000}s`);
  await settle(run.proxy, next);
  const settled = windowWrites(before, run.proxy.byVerbAndResource());
  const atIdle = run.proxy.byVerbAndResource();
  if (!next.exited()) await sleep(run.idleSeconds * 1000);
  const idle = windowWrites(atIdle, run.proxy.byVerbAndResource()).toReady;
  const sample = await next.sample();
  const figures = restartFigures(
    clock,
    readyAt,
    {
      toSettled: settled.toReady,
      perIdleMinute: run.idleSeconds > 0 ? Math.round((idle * 60) / run.idleSeconds) : 0,
      byResource: settled.toReadyByResource,
    },
    {
      peakRssMiB: sample ? Math.round((sample.peakRssKiB / 1024) * 10) / 10 : 0,
      cpuSeconds: sample ? Math.round((sample.cpuTicks / clockTicksPerSecond()) * 100) / 100 : 0,
    },
  );
  return { figures, ctl: next };
}
