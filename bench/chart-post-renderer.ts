// helm --post-renderer for KAITO's chart on the takeover run's cluster (bench/takeover-chart.ts):
// reads helm's rendered manifests on stdin, writes them with the run's stand-ins on stdout.
import { standInManifests } from './takeover-chart.js';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d: string) => (input += d));
process.stdin.on('end', () => process.stdout.write(standInManifests(input)));
