import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, fileDestination, redactSecrets, REDACTED } from '../../../src/manager/logging.js';
import { reconcileScope } from '../../../src/runtime/log.js';

const SECRET = 'hf_S3cr3tV4lu3_' + Math.random().toString(36).slice(2);
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlLXZhbHVl';

function capture(level = 'debug') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  return { log: createLogger({ level, destination }), lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('redactSecrets replaces secret values at any depth and keeps the rest', () => {
  const cases: { input: unknown; keeps?: string }[] = [
    { input: { HF_TOKEN: SECRET } },
    {
      input: {
        env: [
          { name: 'HF_TOKEN', value: SECRET },
          { name: 'MODEL', value: 'phi-4' },
        ],
      },
      keeps: 'phi-4',
    },
    { input: { secret: { kind: 'Secret', data: { HF_TOKEN: Buffer.from(SECRET).toString('base64') }, stringData: { t: SECRET } } }, keeps: 'Secret' },
    { input: { headers: { Authorization: `Bearer ${SECRET}` } } },
    { input: { error: `401 from server: Authorization: Bearer ${SECRET}abc` }, keeps: '401 from server' },
    { input: { token: SECRET, bearerToken: SECRET, access_token: SECRET } },
    { input: { note: `kubeconfig token ${JWT}` }, keeps: 'kubeconfig token' },
    { input: { deep: { a: { b: { c: [{ d: { apiKey: SECRET } }] } } } } },
    { input: new Error(`failed with Bearer ${SECRET}`), keeps: 'failed with' },
  ];
  for (const c of cases) {
    const out = JSON.stringify(redactSecrets(c.input));
    assert.ok(!out.includes(SECRET) && !out.includes(JWT) && !out.includes(Buffer.from(SECRET).toString('base64')), `leaked: ${out}`);
    assert.ok(out.includes(REDACTED), out);
    if (c.keeps) assert.ok(out.includes(c.keeps), `lost "${c.keeps}": ${out}`);
  }
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  assert.deepEqual(redactSecrets(circular), { a: 1, self: '[Circular]' });
});

test('the logger writes JSON, honours the level, and never writes a secret (fields, message, errors)', () => {
  const { log, lines, parsed } = capture('info');
  log.debug({ x: 1 }, 'hidden at info');
  log.info({ workspace: 'ns/ws', env: [{ name: 'HF_TOKEN', value: SECRET }] }, 'applied');
  log.error({ err: new Error(`GET failed: Bearer ${SECRET}`) }, `request with Authorization: Bearer ${SECRET}`);
  log.info({ secret: { data: { HF_TOKEN: SECRET } } }, 'secret read');
  const out = lines.join('\n');
  assert.equal(lines.length, 3, 'the debug line is filtered');
  assert.ok(!out.includes(SECRET), out);
  const [first] = parsed();
  assert.equal(first?.level, 'info');
  assert.equal(first?.msg, 'applied');
  assert.equal(first?.workspace, 'ns/ws');
  assert.match(String(first?.time), /^\d{4}-\d\d-\d\dT/);
});

test('lines logged inside a reconcile pass carry its reconcileID', async () => {
  const { log, parsed } = capture();
  log.info({}, 'outside');
  await reconcileScope.run({ controller: 'workspace', key: 'ns/a', reconcileID: 'r-1' }, async () => {
    await new Promise((r) => setTimeout(r, 1));
    log.info({ step: 'apply' }, 'inside');
  });
  const [outside, inside] = parsed();
  assert.equal(outside?.reconcileID, undefined);
  assert.deepEqual([inside?.reconcileID, inside?.key, inside?.controller, inside?.step], ['r-1', 'ns/a', 'workspace', 'apply']);
});

test('a child logger adds its fields to every line; every level at or above the threshold is written', () => {
  const { log, parsed } = capture('warn');
  const child = log.child({ controller: 'workspace', key: 'ns/a' });
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
  for (const level of levels) child[level]({ n: level }, `at ${level}`);
  log.warn({}, 'parent');
  const lines = parsed();
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.controller, l.component]),
    [
      ['warn', 'at warn', 'workspace', 'kaito-ts'],
      ['error', 'at error', 'workspace', 'kaito-ts'],
      ['fatal', 'at fatal', 'workspace', 'kaito-ts'],
      ['warn', 'parent', undefined, 'kaito-ts'],
    ],
  );
  assert.equal(child.isLevelEnabled('info'), false);
  assert.equal(child.isLevelEnabled('error'), true);
});

test('a line whose fields JSON cannot carry still says what happened; an unknown level is refused', () => {
  const { log, parsed } = capture('info');
  log.info({ big: 10n }, 'odd field');
  const [line] = parsed();
  assert.equal(line?.msg, 'odd field');
  assert.match(String(line?.logError), /BigInt/);
  assert.throws(() => createLogger({ level: 'verbose' }), /log level must be one of trace\|debug\|info\|warn\|error\|fatal\|silent, got "verbose"/);
  const silent = capture('silent');
  silent.log.fatal({}, 'never');
  assert.equal(silent.lines.length, 0);
});

test('fileDestination makes the folder and appends whole lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kaito-ts-log-'));
  try {
    const path = join(dir, 'sub', 'operator.log');
    const dest = fileDestination(path);
    const log = createLogger({ level: 'info', destination: dest });
    log.info({ a: 1 }, 'one');
    log.info({ a: 2 }, 'two');
    dest.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { a: number; msg: string });
    assert.deepEqual(
      lines.map((l) => [l.a, l.msg]),
      [
        [1, 'one'],
        [2, 'two'],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
