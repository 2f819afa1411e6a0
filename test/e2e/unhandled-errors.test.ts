// A test process fails on an unhandled promise rejection or an uncaught exception, even when every test passes:
// the project's own vitest configuration, run on fixture files (with a vault running in their process) that
// leave one behind, exits non-zero; the same run on a file that leaves nothing exits 0.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = 'test/fixtures/unhandled-errors/vitest.config.ts';

/** `vitest run` on one fixture file, in a process of its own. */
function runFixture(name: string): Promise<{ code: number | null; output: string }> {
  // The child is a vitest of its own, not a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'TINYPOOL_WORKER_ID'));
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', config, `test/fixtures/unhandled-errors/${name}.fixture.ts`], {
    cwd: root,
    env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('unhandled errors in a test process', () => {
  it('fail the run on a rejection or an exception nobody handles, and only then', async () => {
    const [clean, rejection, exception] = await Promise.all([runFixture('clean'), runFixture('rejection'), runFixture('exception')]);

    expect(clean.output).toMatch(/Tests\s+1 passed/);
    expect(clean.code, clean.output).toBe(0);

    expect(rejection.output).toMatch(/Tests\s+1 passed/);
    expect(rejection.output).toMatch(/Unhandled Rejection/);
    expect(rejection.output).toContain('a rejection nobody handles');
    expect(rejection.code, rejection.output).not.toBe(0);

    expect(exception.output).toMatch(/Tests\s+1 passed/);
    expect(exception.output).toContain('an exception nobody catches');
    expect(exception.code, exception.output).not.toBe(0);
  });
});
