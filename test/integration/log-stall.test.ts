// A process whose log reader stops reading (a full stdout pipe) must not freeze: sonic-boom's synchronous write used to
// retry for ever in a sleep no signal interrupts, and tokenizers of test vaults whose reader had died were still
// alive an hour later, deaf to SIGTERM. Logged far past what a pipe holds, with stdout never read, the process goes on
// and stops on SIGTERM.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const FLOOD = fileURLToPath(new URL('../fixtures/log-flood.ts', import.meta.url));
/** Bounds a hang only. */
const HANG_MS = 30_000;

it('goes on and stops on SIGTERM when nobody reads its log', async () => {
  const child = spawn(process.execPath, ['--import', TSX, FLOOD], { stdio: ['ignore', 'pipe', 'pipe'] });
  // stdout is never read: the pipe fills after about 64 KB of the 4 MB logged.
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await expect.poll(() => err, { timeout: HANG_MS, interval: 100 }).toContain('logged');
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), HANG_MS))]);
    expect(code).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
}, 2 * HANG_MS + 5_000);
