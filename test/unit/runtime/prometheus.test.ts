import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry, registerProcessMetrics } from '../../../src/runtime/prometheus.js';

test('the registry prints HELP, TYPE and samples in the text format, labels escaped', () => {
  const r = new Registry();
  const c = r.add(new Counter('jobs_total', 'Jobs done.\nBy kind \\ result'));
  c.inc({ kind: 'a"b', result: 'ok' });
  c.inc({ kind: 'a"b', result: 'ok' }, 2);
  c.inc({ kind: 'line\nbreak', result: 'back\\slash' }, 0);
  r.collected('queue_depth', 'Depth.', 'gauge', () => [{ value: 3 }, { labels: { q: 'x' }, value: Infinity }]);
  assert.equal(
    r.render(),
    [
      '# HELP jobs_total Jobs done.\\nBy kind \\\\ result',
      '# TYPE jobs_total counter',
      'jobs_total{kind="a\\"b",result="ok"} 3',
      'jobs_total{kind="line\\nbreak",result="back\\\\slash"} 0',
      '# HELP queue_depth Depth.',
      '# TYPE queue_depth gauge',
      'queue_depth 3',
      'queue_depth{q="x"} +Inf',
      '',
    ].join('\n'),
  );
  assert.match(r.contentType, /^text\/plain; version=0\.0\.4/);
});

test('collected samples are read at each scrape, not at registration', () => {
  const r = new Registry();
  let n = 1;
  r.collected('n', 'N.', 'gauge', () => [{ value: n }]);
  assert.match(r.render(), /^n 1$/m);
  n = 7;
  assert.match(r.render(), /^n 7$/m);
});

test('histogram buckets are cumulative, with +Inf, sum and count per label set', () => {
  const r = new Registry();
  const h = r.add(new Histogram('wait_seconds', 'Wait.', [0.1, 1, 10]));
  for (const v of [0.05, 0.1, 0.5, 20]) h.observe({ c: 'w' }, v);
  h.observe({ c: 'other' }, 2);
  const lines = r.render().split('\n');
  const cases: [string, string][] = [
    ['wait_seconds_bucket{c="w",le="0.1"}', '2'], // 0.1 counts in its own bucket (le is "at most")
    ['wait_seconds_bucket{c="w",le="1"}', '3'],
    ['wait_seconds_bucket{c="w",le="10"}', '3'],
    ['wait_seconds_bucket{c="w",le="+Inf"}', '4'],
    ['wait_seconds_sum{c="w"}', '20.65'],
    ['wait_seconds_count{c="w"}', '4'],
    ['wait_seconds_bucket{c="other",le="1"}', '0'],
    ['wait_seconds_bucket{c="other",le="10"}', '1'],
    ['wait_seconds_count{c="other"}', '1'],
  ];
  for (const [series, want] of cases) assert.ok(lines.includes(`${series} ${want}`), `${series} ${want} in\n${lines.join('\n')}`);
});

test('a name registered twice is refused', () => {
  const r = new Registry();
  r.collected('x', 'X.', 'gauge', () => []);
  assert.throws(() => r.add(new Counter('x', 'again')), /x is registered twice/);
});

test('process metrics report this process: CPU, start time, memory, descriptors, version', () => {
  const r = new Registry();
  registerProcessMetrics(r);
  const text = r.render();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
  assert.ok(value('process_cpu_seconds_total') > 0);
  // One reading per scrape: the total is the sum of the two parts reported beside it.
  const parts = value('process_cpu_user_seconds_total') + value('process_cpu_system_seconds_total');
  assert.ok(Math.abs(value('process_cpu_seconds_total') - parts) < 1e-9, `${value('process_cpu_seconds_total')} ≠ ${parts}`);
  assert.ok(Math.abs(value('process_start_time_seconds') - (Date.now() / 1000 - process.uptime())) < 2);
  const rss = value('process_resident_memory_bytes');
  assert.ok(rss > 10 * 2 ** 20 && rss < 4 * 2 ** 30, String(rss));
  assert.ok(value('nodejs_heap_size_used_bytes') > 0);
  assert.match(text, new RegExp(`^nodejs_version_info\\{version="${process.version}",major="\\d+",minor="\\d+",patch="\\d+"\\} 1$`, 'm'));
  if (process.platform === 'linux') assert.ok(value('process_open_fds') >= 3 && value('process_open_fds') <= value('process_max_fds'));
});

test('scrape hooks run once per render, before the families read what they gathered', () => {
  const r = new Registry();
  let reads = 0;
  let gathered = 0;
  r.onScrape(() => {
    reads++;
    gathered = reads * 10;
  });
  r.collected('a', 'A.', 'gauge', () => [{ value: gathered }]);
  r.collected('b', 'B.', 'gauge', () => [{ value: gathered + 1 }]);
  const samples = () =>
    r
      .render()
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
  assert.deepEqual(samples(), ['a 10', 'b 11']);
  assert.deepEqual(samples(), ['a 20', 'b 21']);
  assert.equal(reads, 2);
});

test('process metrics start and scrape where the process cannot read its own memory (no /proc in a chroot)', (t) => {
  t.mock.method(process, 'memoryUsage', () => {
    throw new Error('ENOENT: no such file or directory, uv_resident_set_memory');
  });
  const r = new Registry();
  registerProcessMetrics(r);
  const text = r.render();
  assert.match(text, /^nodejs_heap_size_used_bytes [1-9]\d*$/m);
  assert.match(text, /^process_cpu_seconds_total \S+$/m);
});
