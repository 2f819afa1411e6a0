// A rolling upgrade from the previous release to this one, and a rollback, on one PostgreSQL database under load.
// The previous release is the commit package.json records (`previousRelease`), unpacked with `git archive`: two of
// its replicas serve, this release's replicas replace them one by one while clients keep calling, then the previous
// release's replace those again. No call fails, no acknowledged write is lost, and both releases' AuditVerify find
// the one trail intact: the previous release reads what this one chained. Then the upgrade is made again and
// completed (`upgrade:complete`), after which this release chains in the leaf form and still finds the trail intact.
// PostgreSQL only: the embedded database belongs to one process, so it has no rolling upgrade.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../fixtures/database.js';
import { startReplicas, type Replica, type ReplicaSet } from '../fixtures/replicas.js';
import { buildProfile } from '../fixtures/vault.js';
import { completeUpgrade } from '../../api/upgrade-complete.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const previous = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { previousRelease: { version: string; commit: string } }).previousRelease;
const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const haveCommit = existsSync(join(ROOT, '.git')) && git('cat-file', '-e', `${previous.commit}^{commit}`).status === 0;
if (usingPostgres() && !haveCommit) {
  console.warn(`upgrade.test.ts skipped: the previous release's commit ${previous.commit} (${previous.version}) is not in this clone's history (a shallow clone?)`);
}
if (!usingPostgres()) console.warn('upgrade.test.ts skipped: a rolling upgrade needs PostgreSQL (the embedded database belongs to one process)');

type Locked = Record<string, { version?: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;

/** `version` within a caret range (`^1.4.0`), the only form checked; any other range is taken as not met. */
function withinCaret(version: string, range: string): boolean {
  const m = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!m || !v) return false;
  const [want, have] = [m.slice(1).map(Number), v.slice(1).map(Number)] as [number[], number[]];
  if (have[0] !== want[0] || (want[0] === 0 && have[1] !== want[1])) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i]! > want[i]!;
  return true;
}

/**
 * Whether the previous release runs on this checkout's packages: every package it locked is installed here at the
 * same version, or (one it does not name itself) at a version every package depending on it accepts, as npm would.
 */
function packagesFit(theirs: Locked, ours: Locked): boolean {
  const named = { ...theirs['']?.dependencies, ...theirs['']?.optionalDependencies };
  return Object.entries(theirs).every(([path, p]) => {
    if (!path.startsWith('node_modules/') || ours[path]?.version === p.version) return true;
    const name = path.slice('node_modules/'.length);
    const have = ours[path]?.version;
    if (!have || name.includes('/node_modules/') || name in named) return false;
    const ranges = Object.values(theirs).flatMap((d) => [d.dependencies?.[name], d.peerDependencies?.[name], d.optionalDependencies?.[name]]).filter((r) => r !== undefined);
    return ranges.every((r) => withinCaret(have, r));
  });
}

/** The previous release's source tree, with this checkout's packages when they fit it (packagesFit), else its own. */
function unpack(): string {
  const dir = mkdtempSync(join(tmpdir(), `sr-release-${previous.version}-`));
  const tar = spawnSync('sh', ['-c', `git archive ${previous.commit} | tar -x -C '${dir}'`], { cwd: ROOT, encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`git archive ${previous.commit} failed: ${tar.stderr}`);
  const locked = (root: string) => (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Locked }).packages;
  if (packagesFit(locked(dir), locked(ROOT))) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  else {
    const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
    if (ci.status !== 0) throw new Error(`npm ci for ${previous.version} failed: ${ci.stderr.slice(-2000)}`);
  }
  return dir;
}

/** Clients calling through whichever replicas are in service, as a Service's endpoints are; each owns its people. */
class Load {
  readonly inService: Replica[] = [];
  readonly failures: string[] = [];
  /** Per person's token, the profile of the last write acknowledged. */
  readonly acknowledged = new Map<string, Record<string, unknown>>();
  private readonly inFlight = new Map<Replica, number>();
  private stopped = false;
  private turn = 0;
  private workers: Promise<void>[] = [];
  calls = 0;
  private people = 1_000_000 + Math.floor(Math.random() * 8_000_000);

  start(clients: number): void {
    this.workers = Array.from({ length: clients }, (_, i) => this.client(i));
  }

  /** Out of service first (no new calls), then the calls under way on it are let finish, as an endpoint's removal does. */
  async drain(replica: Replica): Promise<void> {
    this.inService.splice(this.inService.indexOf(replica), 1);
    while ((this.inFlight.get(replica) ?? 0) > 0) await new Promise((r) => setTimeout(r, 20));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  private async call(op: string, body: unknown) {
    const replica = this.inService[this.turn++ % this.inService.length]!;
    this.inFlight.set(replica, (this.inFlight.get(replica) ?? 0) + 1);
    this.calls++;
    try {
      const res = await replica.call(op, body);
      if (res.status !== 200) this.failures.push(`${replica.name} ${op}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    } catch (err) {
      this.failures.push(`${replica.name} ${op}: ${(err as Error).message}`);
      return undefined;
    } finally {
      this.inFlight.set(replica, this.inFlight.get(replica)! - 1);
    }
  }

  private async client(i: number): Promise<void> {
    const mine: string[] = [];
    for (let n = 0; !this.stopped; n++) {
      if (n % 3 === 0 || !mine.length) {
        // Phones counted, not drawn: a thousand random ones of buildProfile's ten million would collide now and then.
        const profile = buildProfile({ phone: `+1555${String(this.people++).padStart(7, '0')}` });
        const res = await this.call('UserCreate', { profile });
        if (res?.status === 200) {
          mine.push(res.body.token as string);
          this.acknowledged.set(res.body.token as string, profile);
        }
        continue;
      }
      const token = mine[n % mine.length]!;
      if (n % 3 === 1) {
        const city = `c${i}-${n}`;
        const res = await this.call('UserUpdate', { mode: 'token', identity: token, profile: { city } });
        if (res?.status === 200) this.acknowledged.set(token, { ...this.acknowledged.get(token), city });
      } else {
        const res = await this.call('UserGet', { mode: 'token', identity: token });
        if (res?.status === 200) expect(res.body.profile).toEqual(this.acknowledged.get(token));
      }
    }
  }
}

let set: ReplicaSet | undefined;
let tree: string | undefined;
afterAll(async () => {
  await set?.stop();
  if (tree) rmSync(tree, { recursive: true, force: true });
}, 120_000);

describe.skipIf(!usingPostgres() || !haveCommit)(`a rolling upgrade from ${previous.version} (PostgreSQL only: the embedded database belongs to one process)`, () => {
  it('replaces the previous release one replica at a time and back under load: no failed call, no lost write, one intact trail', async () => {
    tree = unpack();
    set = await startReplicas(2, { root: tree, env: { STRONGROOM_SWEEP_SECONDS: '1' } });
    const load = new Load();
    load.inService.push(...set.replicas);
    load.start(4);
    const settle = async () => {
      const before = load.calls;
      await expect.poll(() => load.calls, { timeout: 60_000, interval: 50 }).toBeGreaterThan(before + 40);
    };
    /** Starts a replica of `root` (this checkout when undefined), puts it in service, then drains and stops `old`. */
    const replace = async (old: Replica, root?: string) => {
      load.inService.push(await set!.add(root));
      await settle();
      await load.drain(old);
      await old.stop();
      await settle();
    };
    await settle();
    const [old1, old2] = set.replicas as [Replica, Replica];
    await replace(old1);
    await replace(old2);
    const [new1, new2] = load.inService as [Replica, Replica];
    const errors = () => set!.replicas.flatMap((r) => r.output().split('\n').filter((l) => l.includes('"level":"error"') || l.includes('"level":50')).map((l) => `${r.name}: ${l.slice(0, 1500)}`));
    expect(load.failures, `calls during the upgrade; errors logged:\n${errors().join('\n')}`).toEqual([]);
    // Rolled back: the previous release's replicas replace this one's, on the database this one migrated.
    await replace(new1, tree);
    await replace(new2, tree);
    await load.stop();
    expect(load.failures, `calls during the rollback; errors logged:\n${errors().join('\n')}`).toEqual([]);
    expect(load.acknowledged.size).toBeGreaterThan(20);

    const [back] = load.inService as [Replica];
    for (const [token, profile] of load.acknowledged) {
      const read = await back.call('UserGet', { mode: 'token', identity: token });
      expect(read.body, token).toMatchObject({ status: 'ok', profile });
    }
    // The previous release's verifier reads every event this release chained while they ran side by side.
    expect((await back.call('AuditVerify', {})).body, 'the previous release').toMatchObject({ status: 'ok', result: 'intact' });

    // Upgraded again, and completed: from then on this release writes the leaf form, and its verifier reads both.
    const again = await set.add();
    for (const old of [...load.inService]) await old.stop();
    const { after } = await completeUpgrade(set.databaseUrl);
    expect(after.floor).toBe(2);
    const person = await again.call('UserCreate', { profile: buildProfile() });
    expect(person.status).toBe(200);
    // The replica looks at the floor every 10 s while it writes the first form: writes span that.
    const until = Date.now() + 12_000;
    const flipped = () => again.output().includes('upgrade completed');
    for (let n = 0; Date.now() < until || (!flipped() && Date.now() < until + 20_000); n++) {
      expect((await again.call('UserUpdate', { mode: 'token', identity: person.body.token, profile: { city: `after-${n}` } })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(again.output()).toContain('upgrade completed: the audit trail is chained in the leaf form from now on');
    for (const city of ['leaf-1', 'leaf-2', 'leaf-3']) expect((await again.call('UserUpdate', { mode: 'token', identity: person.body.token, profile: { city } })).status).toBe(200);
    expect((await again.call('AuditVerify', {})).body, 'this release, both forms').toMatchObject({ status: 'ok', result: 'intact' });
  }, 900_000);
});
