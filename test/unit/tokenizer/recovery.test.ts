// The keyring's recovery key: 3-of-5 Shamir shares, shown once, that rebuild it and issue a new wrapping key.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Keyring, RecoveryError } from '../../../tokenizer/keyring.js';
import { KeyringError } from '../../../tokenizer/keyring-file.js';
import { ensureRecovery, loadKeyring } from '../../../tokenizer/keyring-start.js';

async function withRecovery() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
  const dir = join(dataDir, 'tokenizer');
  const wrappingKey = randomBytes(32);
  const { keyring } = loadKeyring({ dataDir, wrappingKey }, () => {});
  let shown = '';
  await ensureRecovery(keyring, (t) => (shown += t));
  const shares = [...shown.matchAll(/share \d: ([0-9a-f]+)/g)].map((m) => m[1]!);
  return { file: join(dir, 'keyring.json'), wrappingKey, keyring, shares, shown };
}

describe('keyring recovery', () => {
  it('shows five shares once and keeps none of them, nor the recovery key, in clear', async () => {
    const { file, keyring, shares, shown } = await withRecovery();
    expect(shares).toHaveLength(5);
    expect(keyring.hasRecovery).toBe(true);
    const text = readFileSync(file, 'utf8');
    for (const s of shares) expect(text).not.toContain(s);
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(['active', 'format', 'recovery', 'recoveryKey', 'sealed', 'versions']);
    // A second start does not show them again.
    let again = '';
    await ensureRecovery(keyring, (t) => (again += t));
    expect(again).toBe('');
    expect(shown).toMatch(/shown only this once/);
  });

  it('issues a new wrapping key from any three shares; the file then opens with it and not with the old one', async () => {
    const { file, wrappingKey, keyring, shares } = await withRecovery();
    const key1 = keyring.key(1)!;
    const next = await keyring.rewrap([shares[4]!, shares[1]!, shares[2]!]);
    expect(next).toHaveLength(32);
    expect(next.equals(wrappingKey)).toBe(false);
    expect(() => Keyring.open(file, wrappingKey)).toThrow(KeyringError);
    const reopened = Keyring.open(file, next);
    expect(reopened.key(1)!.equals(key1)).toBe(true);
    // The shares stay valid for the re-sealed keyring.
    expect(await reopened.rewrap(shares.slice(0, 3))).toHaveLength(32);
  });

  it('keeps the recovery copy up to date across a rotation', async () => {
    const { file, keyring, shares } = await withRecovery();
    keyring.rotate();
    const next = await keyring.rewrap(shares.slice(2));
    expect(Keyring.open(file, next).versions).toEqual([1, 2]);
  });

  it('refuses two shares, shares of another keyring and garbage, and changes nothing', async () => {
    const { file, wrappingKey, keyring, shares } = await withRecovery();
    const other = await withRecovery();
    await expect(keyring.rewrap(shares.slice(0, 2))).rejects.toThrow(RecoveryError);
    await expect(keyring.rewrap(other.shares.slice(0, 3))).rejects.toThrow(RecoveryError);
    await expect(keyring.rewrap([shares[0]!, shares[1]!, other.shares[2]!])).rejects.toThrow(RecoveryError);
    await expect(keyring.rewrap(['00', '11', '22'])).rejects.toThrow(RecoveryError);
    expect(Keyring.open(file, wrappingKey).key(1)!.equals(keyring.key(1)!)).toBe(true);
  });
});
