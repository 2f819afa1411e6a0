// SystemResplitRecoveryKey against the real tokenizer: three current shares give five new ones, after which the old
// shares rebuild a key that opens nothing and the new ones open the keyring's recovery copy. The shares are in no
// log and no audit event; with age recipients the answer carries them only encrypted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { armor, Decrypter, generateIdentity, identityToRecipient } from 'age-encryption';
import { combine } from 'shamir-secret-sharing';
import { describe, expect, it as plain } from 'vitest';
import { apiTestEnv, vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { spawnTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase } from '../fixtures/database.js';
import { startApi } from '../../api/compose.js';
import { openRecoveryCopy } from '../../tokenizer/keyring-file.js';
import { recoveryShares } from '../../tokenizer/keyring.js';

const identities = await Promise.all([1, 2, 3, 4, 5].map(() => generateIdentity()));
const recipients = await Promise.all(identities.map((i) => identityToRecipient(i)));

const it = vaultTest();
const withAge = vaultTest({ tokenizerEnv: { STRONGROOM_RECOVERY_RECIPIENTS: recipients.join(',') } });
// Meant to encrypt, configured wrongly: the tokenizer still serves, and a resplit refuses rather than answer in clear.
const withBadRecipients = vaultTest({ tokenizerEnv: { STRONGROOM_RECOVERY_RECIPIENTS: recipients.slice(0, 4).join(',') } });

/** Whether these shares rebuild a key that opens the recovery copy in the vault's keyring.json (keyring:init's check). */
async function opensRecoveryCopy(vault: TestVault, shares: string[]): Promise<boolean> {
  const doc = JSON.parse(readFileSync(join(vault.dataDir, 'tokenizer', 'keyring.json'), 'utf8')) as { active: number; versions: number[]; recovery: string };
  let key: Buffer;
  try {
    key = Buffer.from(await combine(shares.map((s) => new Uint8Array(Buffer.from(s, 'hex')))));
  } catch {
    return false;
  }
  try {
    openRecoveryCopy(key, doc.active, doc.versions, doc.recovery);
    return true;
  } catch {
    return false;
  }
}

const TRIPLES = [[0, 1, 2], [0, 2, 4], [1, 3, 4], [2, 3, 4]];
async function everyTripleOpens(vault: TestVault, shares: string[]): Promise<boolean[]> {
  return Promise.all(TRIPLES.map((t) => opensRecoveryCopy(vault, t.map((i) => shares[i]!))));
}

async function auditTrail(vault: TestVault): Promise<string> {
  const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
  return JSON.stringify((await vault.call('BulkListAllAuditEvents', { unlockuuid, limit: 1000 })).body);
}

describe('SystemResplitRecoveryKey', () => {
  it('issues five new shares for three current ones; the old ones are void, the new ones open the recovery copy', async ({ vault }) => {
    const old = vault.recoveryShares;
    expect(await everyTripleOpens(vault, old)).toEqual([true, true, true, true]);
    const user = await vault.call('UserCreate', { profile: buildProfile() });

    const res = await vault.call('SystemResplitRecoveryKey', { shares: [old[4], old[1], old[2]] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', encrypted: false });
    expect(res.body.keyringid).toMatch(/^[0-9a-f]{16}$/);
    const fresh = res.body.shares as string[];
    expect(fresh).toHaveLength(5);
    expect(new Set(fresh).size).toBe(5);
    for (const s of fresh) expect(old).not.toContain(s);

    expect(await everyTripleOpens(vault, old)).toEqual([false, false, false, false]);
    expect(await everyTripleOpens(vault, fresh)).toEqual([true, true, true, true]);
    // The tokenizer agrees: old shares are refused, the new ones issue a wrapping key; the data never changed.
    expect((await vault.call('SystemGenerateWrappingKey', { key1: old[0], key2: old[1], key3: old[2] })).body.message).toBe('Master key mismatch');
    expect((await vault.call('SystemGenerateWrappingKey', { key1: fresh[0], key2: fresh[3], key3: fresh[4] })).status).toBe(200);
    expect((await vault.call('UserGet', { mode: 'token', identity: user.body.token })).status).toBe(200);
    // The new set can be re-split in turn (also after the wrapping key changed), and voids itself then.
    const again = await vault.call('SystemResplitRecoveryKey', { shares: fresh.slice(1, 4) });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await everyTripleOpens(vault, fresh)).toEqual([false, false, false, false]);
    expect(await everyTripleOpens(vault, again.body.shares as string[])).toEqual([true, true, true, true]);
    issued = again.body.shares as string[];

    // No share reaches the tokenizer's log or the audit trail; the trail records that a re-split happened.
    const trail = await auditTrail(vault);
    for (const s of [...old, ...fresh, ...(again.body.shares as string[])]) {
      expect(vault.tokenizerOutput()).not.toContain(s);
      expect(trail).not.toContain(s);
    }
    expect(trail).toContain('SystemResplitRecoveryKey');
    expect(vault.tokenizerOutput()).toContain('recovery key re-split');
  });

  it('answers 400 naming shares for wrong, too few, too many, repeated or malformed shares, and changes nothing', async ({ vault }) => {
    // The current set, whatever the test before did: issue one now.
    const current = (await vault.call('SystemResplitRecoveryKey', { shares: (await currentShares(vault)).slice(0, 3) })).body.shares as string[];
    issued = current;
    const other = await recoveryShares(randomBytes(32));
    const bad: unknown[] = [
      undefined,
      'abcd',
      {},
      current.slice(0, 2),
      [...current, current[0]],
      [current[0], current[0], current[1]],
      [current[0], current[1]!.toUpperCase(), current[1]],
      [current[0], current[1], 'not hex'],
      [current[0], current[1], 42],
      [current[0], current[1], ''],
      [current[0], current[1], current[2]!.slice(0, 20)],
      // A valid share of another keyring, and three random ones: they combine, into a key that opens nothing.
      [current[0], current[1], other[2]],
      other.slice(0, 3),
      [randomBytes(33).toString('hex'), randomBytes(33).toString('hex'), randomBytes(33).toString('hex')],
    ];
    for (const shares of bad) {
      const res = await vault.call('SystemResplitRecoveryKey', shares === undefined ? {} : { shares });
      expect(res.status, `${JSON.stringify(shares)} → ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.message).toMatch(/\bshares\b/);
      for (const s of current) expect(res.body.message).not.toContain(s);
    }
    expect(await everyTripleOpens(vault, current)).toEqual([true, true, true, true]);
    const trail = await auditTrail(vault);
    for (const s of current) expect(trail).not.toContain(s);
  });

  it('is refused (403) to every caller but the root token', async ({ vault }) => {
    const shares = (await currentShares(vault)).slice(0, 3);
    const t = await vault.call('TenantCreate', { tenantname: `resplit${Date.now() % 100000}`, tenantorg: 'Org' });
    // A main-tenant role whose policy allows everything is still not the root token.
    const rolename = `resplit-${randomUUID().slice(0, 8)}`;
    expect((await vault.call('RoleCreate', { rolename })).status).toBe(200);
    expect((await vault.call('PolicyCreate', { policyname: rolename, policy: { Effect: 'Allow', Action: '*' } })).status).toBe(200);
    expect((await vault.call('RoleLinkPolicy', { rolename, policyname: rolename })).status).toBe(200);
    const xtoken = (await vault.call('XTokenCreateForRole', { rolename })).body.xtoken as string;
    for (const token of [t.body.xtoken as string, xtoken]) {
      const res = await vault.call('SystemResplitRecoveryKey', { shares }, { 'x-bunker-token': token });
      expect(res.status, JSON.stringify(res.body)).toBe(403);
    }
    expect(await everyTripleOpens(vault, await currentShares(vault))).toEqual([true, true, true, true]);
  });
});

/** The shares the file's vault takes now: the last set a test here issued, or keyring:init's. */
let issued: string[] | undefined;
async function currentShares(vault: TestVault): Promise<string[]> {
  const held = issued ?? vault.recoveryShares;
  if (!(await opensRecoveryCopy(vault, held.slice(0, 3)))) throw new Error('the test lost track of the current shares');
  return held;
}

describe('SystemResplitRecoveryKey with age recipients', () => {
  withAge('answers the new shares only encrypted, share n to recipient n', async ({ vault }) => {
    const res = await vault.call('SystemResplitRecoveryKey', { shares: vault.recoveryShares.slice(2) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ encrypted: true, recipients });
    expect(res.body.shares).toBeUndefined();
    const files = res.body.encryptedshares as string[];
    expect(files).toHaveLength(5);
    const shares: string[] = [];
    for (const [i, file] of files.entries()) {
      expect(file).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----/);
      const d = new Decrypter();
      d.addIdentity(identities[i]!);
      const text = await d.decrypt(armor.decode(file), 'text');
      expect(text).toContain(`share ${i + 1} of 5 for keyring ${res.body.keyringid}`);
      shares.push(/^([0-9a-f]+)$/m.exec(text)![1]!);
      const wrong = new Decrypter();
      wrong.addIdentity(identities[(i + 1) % 5]!);
      await expect(wrong.decrypt(armor.decode(file), 'text')).rejects.toThrow();
    }
    // Nothing in the answer, the log or the trail is a share in clear.
    const answer = JSON.stringify(res.body);
    for (const s of shares) {
      expect(answer).not.toContain(s);
      expect(vault.tokenizerOutput()).not.toContain(s);
      expect(await auditTrail(vault)).not.toContain(s);
    }
    expect(await everyTripleOpens(vault, vault.recoveryShares)).toEqual([false, false, false, false]);
    expect(await everyTripleOpens(vault, shares)).toEqual([true, true, true, true]);
  });
});

describe('SystemResplitRecoveryKey with recipients configured wrongly', () => {
  withBadRecipients('answers 409 naming the setting, issues nothing in clear, and changes nothing', async ({ vault }) => {
    expect((await vault.call('UserCreate', { profile: buildProfile() })).status).toBe(200);
    const res = await vault.call('SystemResplitRecoveryKey', { shares: vault.recoveryShares.slice(0, 3) });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.message).toMatch(/STRONGROOM_RECOVERY_RECIPIENTS/);
    expect(res.body.shares).toBeUndefined();
    expect(await everyTripleOpens(vault, vault.recoveryShares)).toEqual([true, true, true, true]);
  });
});

describe('a keyring without a recovery key', () => {
  plain('answers 409 with a clear message', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const db = await createTestDatabase();
    // A first start creates the keyring without a recovery key (keyring:init was never run).
    const tokenizer = await spawnTokenizer({ dataDir: mkdtempSync(join(tmpdir(), 'sr-k-')) });
    const rootToken = randomUUID();
    try {
      const api = await startApi(apiTestEnv({ dataDir, rootToken, socketPath: tokenizer.socketPath, databaseUrl: db.url }));
      try {
        const shares = await recoveryShares(randomBytes(32));
        const res = await fetch(`http://127.0.0.1:${api.port}/v2/SystemResplitRecoveryKey`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-bunker-token': rootToken },
          body: JSON.stringify({ shares: shares.slice(0, 3) }),
        });
        expect(res.status).toBe(409);
        expect(((await res.json()) as { message: string }).message).toMatch(/no recovery key.*keyring:init/);
      } finally {
        await api.close();
      }
    } finally {
      await tokenizer.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
