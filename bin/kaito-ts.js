#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/ after `npm ci` (built by the `prepare` script).
import { setFlagsFromString } from 'node:v8';
import { runtimeV8Flags } from '../dist/src/manager/node-flags.js';
import { main } from '../dist/src/cli/main.js';

// Memory before speed (src/manager/node-flags.ts); `node --no-optimize-for-size` opts out.
for (const flag of runtimeV8Flags(process.execArgv)) setFlagsFromString(flag);

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    console.error(`kaito-ts: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
