// Starts the reference server (reference.ts) as its own process on a schema of its own, and fills it with the
// bench's profiles, so its figures can be taken interleaved with the vault's in the same run.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../fixtures/processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Reference {
  url: string;
  /** The server's process, for cpu-time.ts. */
  pid: number;
  seed(profiles: Record<string, unknown>[]): Promise<void>;
  stop(): Promise<void>;
}

export async function startReference(databaseUrl: string, schema: string, env: Record<string, string> = {}): Promise<Reference> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/reference.ts'], {
    cwd: root,
    env: { ...process.env, ...env, REF_DATABASE_URL: databaseUrl, REF_SCHEMA: schema, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`reference server exited (${code}) before listening`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    async seed(profiles) {
      for (let i = 0; i < profiles.length; i += 1000) {
        const res = await fetch(`${url}/seed`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ profiles: profiles.slice(i, i + 1000) }),
        });
        if (res.status !== 200) throw new Error(`reference seed failed: ${res.status}`);
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
