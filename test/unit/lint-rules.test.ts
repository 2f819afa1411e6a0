// The project's own lint rule (test/lint/plugin.mjs) reports what it exists for, through oxlint and .oxlintrc.json.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function lint(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sr-lint-'));
  const file = join(dir, 'sample.ts');
  writeFileSync(file, source);
  const run = spawnSync(process.execPath, [join(root, 'node_modules/oxlint/bin/oxlint'), '-c', join(root, '.oxlintrc.json'), '-f', 'unix', file], { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`;
}

describe('no-await-in-promise-combinator', () => {
  it('reports an await inside the arguments of Promise.all and its siblings', () => {
    for (const name of ['all', 'allSettled', 'race', 'any']) {
      const out = lint(`export async function f(a: () => Promise<number>, b: () => Promise<number>) {\n  return Promise.${name}([a(), await b()]);\n}\n`);
      expect(out, name).toContain('strongroom(no-await-in-promise-combinator)');
    }
  });

  it('leaves awaits inside callbacks and outside the call alone', () => {
    const out = lint(
      `export async function f(xs: number[], a: (n: number) => Promise<number>) {\n  const first = await a(0);\n  return Promise.all(xs.map(async (x) => (await a(x)) + first));\n}\n`,
    );
    expect(out).not.toContain('no-await-in-promise-combinator');
  });
});
