#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/ after `npm ci` (built by the `prepare` script).
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    console.error(`kaito-ts: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
