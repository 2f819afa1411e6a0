// The compiled vault (its supervisor, api and tokenizer) and the reference server on one database of their own, both
// holding the same bench profiles, with their processes grouped for cpu-time.ts: what cpu.ts and layers.ts measure.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSupervisor, supervisedChildren, type Supervised } from '../fixtures/processes.js';
import { benchProfile } from './profiles.js';
import { startReference, type Reference } from './references.js';
import { benchDatabase } from './database.js';

type Process = { pid: number; comm: string };

export interface SideBySide {
  vault: Supervised;
  reference: Reference;
  /** The vault's root token. */
  root: string;
  /** This run's tag in the profiles' logins and emails. */
  run: string;
  emails: string[];
  /** cpu-time.ts's groups: the api, the tokenizer, PostgreSQL, the reference server and this process (the load generator). */
  groups: Record<string, (p: Process) => boolean>;
  stop: () => Promise<void>;
}

/** `people` bench profiles in both, made through UserCreateBulk in the vault and seeded in the reference (`ref_<kind>`). */
export async function sideBySide(kind: string, people: number): Promise<SideBySide> {
  const { url, drop } = await benchDatabase(kind);
  const dataDir = mkdtempSync(join(tmpdir(), `sr-${kind}-`));
  const root = randomUUID();
  const vault = await startSupervisor({ DATABASE_URL: url, STRONGROOM_DATA_DIR: dataDir, STRONGROOM_ROOT_TOKEN: root, STRONGROOM_LOG_LEVEL: 'warn' }, { built: true });
  const reference = await startReference(url, `ref_${kind}`);
  const stop = async () => {
    await vault.stop();
    await reference.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await drop();
  };
  try {
    await vault.waitReady();
    const run = randomBytes(3).toString('hex');
    const profiles = Array.from({ length: people }, (_, i) => benchProfile(1_000_000 + i, run));
    for (let b = 0; b < people; b += 1000) {
      const records = profiles.slice(b, b + 1000).map((profile) => ({ profile }));
      const res = await fetch(`${vault.url}/v2/UserCreateBulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bunker-token': root }, body: JSON.stringify({ records }) });
      if (res.status !== 200) throw new Error(`UserCreateBulk: ${res.status}`);
    }
    await reference.seed(profiles);
    const { api, tokenizer } = supervisedChildren(vault.child.pid!);
    if (!api || !tokenizer) throw new Error('the vault\'s api and tokenizer processes were not found');
    const groups = {
      api: (p: Process) => p.pid === api,
      tokenizer: (p: Process) => p.pid === tokenizer,
      postgres: (p: Process) => p.comm === 'postgres',
      reference: (p: Process) => p.pid === reference.pid,
      'load generator': (p: Process) => p.pid === process.pid,
    };
    return { vault, reference, root, run, emails: profiles.map((p) => p.email as string), groups, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
