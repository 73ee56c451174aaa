// Preloaded into a child process (`node --import <this file>`): at exit, its peak resident set size
// in KiB (process.resourceUsage().maxRSS) and its CPU time in µs (user + system) go to the file
// KAITO_TS_USAGE_FILE names, as JSON, off stdout and stderr.
import { writeFileSync } from 'node:fs';

const file = process.env.KAITO_TS_USAGE_FILE;
if (file)
  process.on('exit', () => {
    const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRSS, cpu: userCPUTime + systemCPUTime }));
  });
