// The keyring at rest: sealed with the wrapping key, private file modes, refusals, rotation, the v1 format.
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../../tokenizer/keyring.js';
import { KeyringError } from '../../../tokenizer/keyring-file.js';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';

const mode = (path: string) => statSync(path).mode & 0o777;

function fresh() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
  const dir = join(dataDir, 'tokenizer');
  const wrappingKey = randomBytes(32);
  const { keyring, created } = loadKeyring({ dataDir, wrappingKey }, () => {});
  return { dataDir, dir, file: join(dir, 'keyring.json'), wrappingKey, keyring, created };
}

describe('keyring', () => {
  it('is created sealed, 0600 in a 0700 directory, holding only metadata and the sealed blob', () => {
    const { dir, file, keyring, created } = fresh();
    expect(created).toBe(true);
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const doc = JSON.parse(text);
    expect(Object.keys(doc).sort()).toEqual(['active', 'format', 'sealed', 'versions']);
    expect(doc).toMatchObject({ active: 1, versions: [1] });
    expect(keyring.key(1)).toHaveLength(32);
    expect(text).not.toContain(keyring.key(1)!.toString('hex'));
    expect(text).not.toContain(keyring.key(1)!.toString('base64'));
  });

  it('reopens with its wrapping key to the same keys', () => {
    const { dataDir, wrappingKey, keyring } = fresh();
    const again = loadKeyring({ dataDir, wrappingKey }, () => {});
    expect(again.created).toBe(false);
    expect(again.keyring.key(1)!.equals(keyring.key(1)!)).toBe(true);
  });

  it('refuses a wrong wrapping key with a GCM error and leaves the file alone', () => {
    const { dataDir, file } = fresh();
    const before = readFileSync(file);
    expect(() => loadKeyring({ dataDir, wrappingKey: randomBytes(32) }, () => {})).toThrow(KeyringError);
    expect(() => loadKeyring({ dataDir, wrappingKey: randomBytes(32) }, () => {})).toThrow(/GCM authentication failed/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('detects a tampered blob and tampered metadata', () => {
    const { file, wrappingKey } = fresh();
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const blob = Buffer.from(doc.sealed, 'base64');
    blob[20] = blob[20]! ^ 1;
    writeFileSync(file, JSON.stringify({ ...doc, sealed: blob.toString('base64') }));
    expect(() => Keyring.open(file, wrappingKey)).toThrow(KeyringError);

    const other = fresh();
    other.keyring.rotate();
    const d2 = JSON.parse(readFileSync(other.file, 'utf8'));
    // Steering new writes back to version 1 by editing the readable metadata must not work.
    writeFileSync(other.file, JSON.stringify({ ...d2, active: 1 }));
    expect(() => Keyring.open(other.file, other.wrappingKey)).toThrow(KeyringError);
  });

  it('rotates: the new active version persists, old keys stay, the file stays private', () => {
    const { dir, file, wrappingKey, keyring } = fresh();
    const first = Buffer.from(keyring.key(1)!);
    expect(keyring.rotate()).toBe(2);
    expect(keyring.rotate()).toBe(3);
    expect(mode(file)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['keyring.json']);
    const reopened = Keyring.open(file, wrappingKey);
    expect(reopened.active).toBe(3);
    expect(reopened.versions).toEqual([1, 2, 3]);
    expect(reopened.key(1)!.equals(first)).toBe(true);
    expect(reopened.key(3)!.equals(keyring.key(3)!)).toBe(true);
    expect(reopened.key(2)!.equals(reopened.key(3)!)).toBe(false);
  });

  it('never replaces an existing keyring on create', () => {
    const { file, wrappingKey } = fresh();
    const before = readFileSync(file);
    expect(() => Keyring.create(file, wrappingKey)).toThrow(/already exists/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('still opens a v1 keyring and rewrites it as v2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-'));
    const file = join(dir, 'keyring.json');
    const wrappingKey = randomBytes(32);
    const key1 = randomBytes(32);
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', wrappingKey, nonce);
    c.setAAD(Buffer.from('strongroom-keyring-v1'));
    const body = Buffer.concat([c.update(JSON.stringify({ 1: key1.toString('hex') })), c.final()]);
    const sealed = Buffer.concat([nonce, body, c.getAuthTag()]).toString('base64');
    writeFileSync(file, JSON.stringify({ format: 'strongroom-keyring-v1', active: 1, versions: [1], sealed }), { mode: 0o600 });
    expect(Keyring.open(file, wrappingKey).key(1)!.equals(key1)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('strongroom-keyring-v2');
    expect(Keyring.open(file, wrappingKey).key(1)!.equals(key1)).toBe(true);
  });
});
