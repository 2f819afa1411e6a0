// `npm run keyring:init`: it creates the keyring with a recovery key and hands out five shares, three of which
// rebuild that key, in clear on its terminal or each encrypted to its holder's age recipient; it refuses to run
// beside a serving tokenizer and never replaces a recovery key unless told to.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { armor, Decrypter, generateIdentity, identityToRecipient } from 'age-encryption';
import { combine } from 'shamir-secret-sharing';
import { describe, expect, it } from 'vitest';
import { Keyring, RecoveryError } from '../../../tokenizer/keyring.js';
import { InitError, initKeyring, parseRecipients, type InitOptions } from '../../../tokenizer/keyring-init.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const SHARE = /share (\d): ([0-9a-f]+)/g;

function setup() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
  return {
    dataDir,
    wrappingKey: randomBytes(32),
    socketPath: join(dataDir, 'run', 'tokenizer.sock'),
    keyringFile: join(dataDir, 'tokenizer', 'keyring.json'),
  };
}

function options(over: Partial<InitOptions> = {}): InitOptions & { shown: () => string } {
  let shown = '';
  return {
    recipients: [],
    outDir: mkdtempSync(join(tmpdir(), 'sr-shares-')),
    print: true,
    replace: false,
    show: (t) => (shown += t),
    notice: () => {},
    shown: () => shown,
    ...over,
  };
}

const sharesIn = (text: string) => [...text.matchAll(SHARE)].map((m) => m[2]!);

async function holders(n = 5) {
  const identities = await Promise.all(Array.from({ length: n }, () => generateIdentity()));
  return { identities, recipients: await Promise.all(identities.map((i) => identityToRecipient(i))) };
}

async function decrypt(file: string, identity: string): Promise<string> {
  const d = new Decrypter();
  d.addIdentity(identity);
  return d.decrypt(armor.decode(readFileSync(file, 'utf8')), 'text');
}

describe('keyring:init', () => {
  it('creates the keyring and prints five shares, any three of which rebuild its recovery key', async () => {
    const c = setup();
    const opts = options();
    const result = await initKeyring(c, opts);
    expect(result.created).toBe(true);
    const shares = sharesIn(opts.shown());
    expect(shares).toHaveLength(5);
    expect(new Set(shares).size).toBe(5);
    // Every choice of three gives the same secret, and two do not.
    const triples = [[0, 1, 2], [0, 2, 4], [1, 3, 4], [2, 3, 4]].map((t) => t.map((i) => new Uint8Array(Buffer.from(shares[i]!, 'hex'))));
    const secrets = await Promise.all(triples.map(async (t) => Buffer.from(await combine(t)).toString('hex')));
    expect(new Set(secrets).size).toBe(1);
    // That secret is this keyring's recovery key: three shares re-seal it under a new wrapping key.
    const keyring = Keyring.open(c.keyringFile, c.wrappingKey);
    expect(keyring.hasRecovery).toBe(true);
    const next = await keyring.rewrap([shares[4]!, shares[0]!, shares[2]!]);
    expect(Keyring.open(c.keyringFile, next).key(1)!.equals(keyring.key(1)!)).toBe(true);
    // The keyring file keeps none of them.
    for (const s of shares) expect(readFileSync(c.keyringFile, 'utf8')).not.toContain(s);
  });

  it('with five recipients, writes five age files (0600) that only the matching identity opens, and prints nothing', async () => {
    const c = setup();
    const { identities, recipients } = await holders();
    const opts = options({ recipients, print: false });
    const result = await initKeyring(c, opts);
    expect(opts.shown()).toBe('');
    expect(result.files).toEqual([1, 2, 3, 4, 5].map((n) => join(opts.outDir, `share-${n}.age`)));
    const shares: string[] = [];
    for (const [i, file] of result.files.entries()) {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----/);
      const text = await decrypt(file, identities[i]!);
      expect(text).toContain(`share ${i + 1} of 5 for keyring ${result.keyringId}`);
      shares.push(/^([0-9a-f]+)$/m.exec(text)![1]!);
      await expect(decrypt(file, identities[(i + 1) % 5]!)).rejects.toThrow();
    }
    const keyring = Keyring.open(c.keyringFile, c.wrappingKey);
    expect(await keyring.rewrap(shares.slice(2))).toHaveLength(32);
  });

  it('gives a keyring made by a first start its recovery key, refuses a second time, and with --replace voids the old shares', async () => {
    // A development data directory: no wrapping key given, so keyring:init makes the development key file.
    const c = { ...setup(), wrappingKey: undefined };
    const first = options();
    await initKeyring(c, first);
    const devKey = Buffer.from(readFileSync(join(c.dataDir, 'tokenizer', 'wrapping.key'), 'utf8').trim(), 'hex');
    const old = sharesIn(first.shown());
    await expect(initKeyring(c, options())).rejects.toThrow(/already has a recovery key/);
    const again = options({ replace: true });
    const result = await initKeyring(c, again);
    expect(result.created).toBe(false);
    const fresh = sharesIn(again.shown());
    expect(fresh).toHaveLength(5);
    const keyring = Keyring.open(c.keyringFile, devKey);
    await expect(keyring.rewrap(old.slice(0, 3))).rejects.toThrow(RecoveryError);
    expect(await keyring.rewrap(fresh.slice(0, 3))).toHaveLength(32);
  });

  it('refuses while a tokenizer serves the socket, and when share files already exist, changing nothing', async () => {
    const c = setup();
    const server = createServer();
    mkdirSync(join(c.dataDir, 'run'), { recursive: true });
    await new Promise<void>((resolve) => server.listen(c.socketPath, resolve));
    try {
      await expect(initKeyring(c, options())).rejects.toThrow(/a tokenizer is serving/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(existsSync(c.keyringFile)).toBe(false);

    const { recipients } = await holders();
    const opts = options({ recipients });
    await initKeyring(setup(), opts);
    await expect(initKeyring(c, { ...opts })).rejects.toThrow(/already exist/);
    expect(existsSync(c.keyringFile)).toBe(false);
  });

  it('takes exactly five different age recipients', async () => {
    const { recipients } = await holders();
    expect(parseRecipients(recipients.join(',\n '))).toEqual(recipients);
    expect(parseRecipients('')).toEqual([]);
    expect(() => parseRecipients(recipients.slice(0, 4).join(','))).toThrow(InitError);
    expect(() => parseRecipients([...recipients.slice(0, 4), recipients[0]].join(','))).toThrow(InitError);
    expect(() => parseRecipients([...recipients.slice(0, 4), 'age1nope'].join(','))).toThrow(/recipient 5/);
  });

  it('as four commands racing on one data directory: one creates the keyring and shows shares that rebuild it, the rest refuse', async () => {
    const tsx = join(root, 'node_modules/.bin/tsx');
    const script = join(root, 'tokenizer/keyring-init.ts');
    const c = setup();
    const env = { PATH: process.env.PATH, STRONGROOM_DATA_DIR: c.dataDir, STRONGROOM_WRAPPING_KEY: c.wrappingKey.toString('hex') };
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(tsx, [script, '--print'], { env }).then(
          ({ stdout }) => ({ ok: true, stdout, stderr: '' }),
          (err: { stdout: string; stderr: string }) => ({ ok: false, stdout: err.stdout, stderr: err.stderr }),
        ),
      ),
    );
    const issued = outcomes.filter((o) => o.ok);
    expect(issued).toHaveLength(1);
    for (const o of outcomes.filter((x) => !x.ok)) {
      expect(o.stderr).toMatch(/already has a recovery key/);
      expect(sharesIn(o.stdout)).toEqual([]);
    }
    const shares = sharesIn(issued[0]!.stdout);
    expect(shares).toHaveLength(5);
    expect(await Keyring.open(c.keyringFile, c.wrappingKey).rewrap(shares.slice(0, 3))).toHaveLength(32);
  }, 60_000);

  it('as a command: prints the shares with --print, and refuses clear shares on a stdout that is not a terminal', async () => {
    const tsx = join(root, 'node_modules/.bin/tsx');
    const script = join(root, 'tokenizer/keyring-init.ts');
    const c = setup();
    const env = { PATH: process.env.PATH, STRONGROOM_DATA_DIR: c.dataDir, STRONGROOM_WRAPPING_KEY: c.wrappingKey.toString('hex') };
    const refused = await run(tsx, [script], { env }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect((refused as { code: number }).code).toBe(1);
    expect((refused as { stderr: string }).stderr).toMatch(/stdout is not a terminal/);
    expect(existsSync(c.keyringFile)).toBe(false);

    const { stdout, stderr } = await run(tsx, [script, '--print'], { env });
    expect(sharesIn(stdout)).toHaveLength(5);
    expect(sharesIn(stderr)).toHaveLength(0);
    expect(await Keyring.open(c.keyringFile, c.wrappingKey).rewrap(sharesIn(stdout).slice(1, 4))).toHaveLength(32);
  });
});
