import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { isValidImageRef, normalizeImageRef } from '../../../src/api/image-ref.js';
import { checkTrainingConfig, resolveOutputDir, tuningMethod, withOutputDir } from '../../../src/api/tuning-config.js';
import { builtinTrainingConfig } from '../../../src/builders/tuning/config.js';

// KAITO's TestSetupTrainingOutputVolume cases plus the edges of the /mnt rule.
const OUTPUT_DIRS: [raw: unknown, want: string | RegExp][] = [
  [undefined, '/mnt/output'],
  ['', '/mnt/output'],
  ['custom/path', '/mnt/custom/path'],
  ['/mnt/output', '/mnt/output'],
  ['/mnt/results/', '/mnt/results'],
  ['output', '/mnt/output'],
  ['/etc', '/mnt/etc'],
  ['../../etc/passwd', /Invalid output_dir specified: '..\/..\/etc\/passwd', must be a directory/],
  ['/mnt', /must be a directory/],
  ['/mnt/../etc', /must be a directory/],
  ['/mntfoo', /must be a directory/],
  [42, /must be a string/],
];
for (const [raw, want] of OUTPUT_DIRS) {
  test(`resolveOutputDir(${JSON.stringify(raw)})`, () => {
    const r = resolveOutputDir(raw);
    if (typeof want === 'string') assert.deepEqual(r.ok && r.dir, want);
    else assert.match(r.ok ? 'ok' : r.message, want);
  });
}

const cfg = (sections: string) => `training_config:\n${sections}`;
const CONFIGS: { name: string; text: string | undefined; method: 'lora' | 'qlora'; errors: RegExp[]; outputDir?: string; rewrite?: boolean }[] = [
  { name: 'the chart lora template', text: builtinTrainingConfig('lora'), method: 'lora', errors: [], outputDir: '/mnt/results', rewrite: false },
  { name: 'the chart qlora template', text: builtinTrainingConfig('qlora'), method: 'qlora', errors: [], outputDir: '/mnt/results', rewrite: false },
  {
    name: 'lora template used for qlora',
    text: builtinTrainingConfig('lora'),
    method: 'qlora',
    errors: [/For method 'qlora', either 'load_in_4bit' or 'load_in_8bit' must be true in ConfigMap 'cm'/],
  },
  {
    name: 'qlora template used for lora',
    text: builtinTrainingConfig('qlora'),
    method: 'lora',
    errors: [/For method 'lora', 'load_in_4bit' or 'load_in_8bit' in ConfigMap 'cm' must not be true/],
  },
  {
    name: 'both bits',
    text: cfg('  QuantizationConfig:\n    load_in_4bit: true\n    load_in_8bit: true\n'),
    method: 'qlora',
    errors: [/Cannot set both 'load_in_4bit' and 'load_in_8bit' to true in ConfigMap 'cm'/],
  },
  {
    name: 'a bit that is not a boolean',
    text: cfg('  QuantizationConfig:\n    load_in_4bit: "yes"\n'),
    method: 'qlora',
    errors: [/value must be either nil or a boolean, got type string/],
  },
  {
    name: 'qlora without the section',
    text: cfg('  LoraConfig:\n    r: 8\n'),
    method: 'qlora',
    errors: [/either 'load_in_4bit' or 'load_in_8bit' must be true/],
  },
  { name: 'an unknown section', text: cfg('  Bogus:\n    a: 1\n'), method: 'lora', errors: [/Unrecognized section: Bogus/] },
  { name: 'not a map', text: 'training_config: 3\n', method: 'lora', errors: [/Expected 'training_config' key to contain a map/] },
  { name: 'no key', text: undefined, method: 'lora', errors: [/has no key 'training_config.yaml'/] },
  { name: 'invalid YAML', text: 'training_config: [\n', method: 'lora', errors: [/Failed to parse training_config.yaml/] },
  {
    name: 'explicit empty output_dir',
    text: cfg('  TrainingArguments:\n    output_dir: ""\n'),
    method: 'lora',
    errors: [/Invalid output_dir specified: '', must be a directory/],
  },
  {
    name: 'relative output_dir: usable, rewritten',
    text: cfg('  TrainingArguments:\n    output_dir: "output"\n'),
    method: 'lora',
    errors: [],
    outputDir: '/mnt/output',
    rewrite: true,
  },
  { name: 'no output_dir: usable, rewritten', text: cfg('  LoraConfig:\n    r: 8\n'), method: 'lora', errors: [], outputDir: '/mnt/output', rewrite: true },
];
for (const c of CONFIGS) {
  test(`checkTrainingConfig: ${c.name}`, () => {
    const r = checkTrainingConfig(c.text, c.method, 'cm');
    assert.equal(r.errors.length, c.errors.length, r.errors.join('; '));
    c.errors.forEach((re, i) => assert.match(r.errors[i] ?? '', re));
    if (c.outputDir) assert.equal(r.outputDir, c.outputDir);
    if (c.rewrite !== undefined) assert.equal(r.needsOutputDirRewrite, c.rewrite);
  });
}

test('withOutputDir sets TrainingArguments.output_dir and keeps the rest', () => {
  for (const text of [cfg('  TrainingArguments:\n    output_dir: "output"\n    num_train_epochs: 2\n'), cfg('  LoraConfig:\n    r: 8\n')]) {
    const out = parse(withOutputDir(text, '/mnt/output')) as { training_config: { TrainingArguments: { output_dir: string } } };
    assert.equal(out.training_config.TrainingArguments.output_dir, '/mnt/output');
    assert.deepEqual(checkTrainingConfig(withOutputDir(text, '/mnt/output'), 'lora', 'cm').needsOutputDirRewrite, false);
  }
});

test('tuningMethod lowercases lora/qlora and refuses the rest', () => {
  const cases: [string | undefined, string | undefined][] = [
    ['lora', 'lora'],
    ['LoRA', 'lora'],
    ['QLORA', 'qlora'],
    ['invalid-method', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [m, want] of cases) assert.equal(tuningMethod(m), want, String(m));
});

// KAITO's TestDataSourceValidateCreate / puller tests.
const IMAGES: [ref: string, valid: boolean, normalized?: string][] = [
  ['data-image:latest', true, 'docker.io/library/data-image:latest'],
  ['scratch-x', true, 'docker.io/library/scratch-x:latest'],
  ['custom/data-loader-image', true, 'docker.io/custom/data-loader-image:latest'],
  ['kaito.azurecr.io/input:0.0.0', true, 'kaito.azurecr.io/input:0.0.0'],
  ['localhost:5000/a/b', true, 'localhost:5000/a/b:latest'],
  [`myacr.azurecr.io/adapter@sha256:${'a'.repeat(64)}`, true, `myacr.azurecr.io/adapter@sha256:${'a'.repeat(64)}`],
  ['kaito.azurecr.io/INPUT:0.0.0', false],
  ['!ValidImage', false],
  ['a//b', false],
  ['', false],
];
for (const [ref, valid, normalized] of IMAGES) {
  test(`image reference ${JSON.stringify(ref)}: ${valid ? 'valid' : 'invalid'}`, () => {
    assert.equal(isValidImageRef(ref), valid);
    assert.equal(normalizeImageRef(ref), normalized ?? ref);
  });
}
