// The keyring at start: a development wrapping key file on first start, announced once; a supplied key needed later.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('loadKeyring (first start and later starts)', () => {
  it('creates a development wrapping key file, announces its path once, and never prints the key', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const notices: string[] = [];
    const first = loadKeyring({ dataDir, wrappingKey: undefined }, (t) => notices.push(t));
    const keyFile = join(dataDir, 'tokenizer', 'wrapping.key');
    const hex = readFileSync(keyFile, 'utf8').trim();
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(mode(keyFile)).toBe(0o600);
    expect(first.created).toBe(true);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(keyFile);
    expect(notices[0]).toContain('STRONGROOM_WRAPPING_KEY');
    expect(notices[0]).not.toContain(hex);

    const second = loadKeyring({ dataDir, wrappingKey: undefined }, (t) => notices.push(t));
    expect(second.created).toBe(false);
    expect(notices).toHaveLength(1);
    expect(second.keyring.key(1)!.equals(first.keyring.key(1)!)).toBe(true);
  });

  it('writes no key file when a wrapping key is supplied, and needs it afterwards', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-'));
    const wrappingKey = randomBytes(32);
    loadKeyring({ dataDir, wrappingKey }, () => {});
    expect(existsSync(join(dataDir, 'tokenizer', 'wrapping.key'))).toBe(false);
    expect(() => loadKeyring({ dataDir, wrappingKey: undefined }, () => {})).toThrow(/a keyring exists .* but no wrapping key was given/);
    expect(() => loadKeyring({ dataDir, wrappingKey: randomBytes(32) }, () => {})).toThrow(/does not open the keyring/);
    expect(loadKeyring({ dataDir, wrappingKey }, () => {}).keyring.versions).toEqual([1]);
  });
});
