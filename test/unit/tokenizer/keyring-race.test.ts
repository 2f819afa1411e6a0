// Tokenizers starting together on one shared volume: exactly one creates the keyring and the others open that
// keyring; none shows a recovery share (keyring:init issues them: test/unit/tokenizer/keyring-init.test.ts).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../../tokenizer/keyring.js';
import { KeyringExistsError } from '../../../tokenizer/keyring-file.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../fixtures/open-keyring.ts', import.meta.url));

/** A tokenizer's settings for this data directory, without the developer's own STRONGROOM_* ones. */
function startEnv(dataDir: string, wrappingKey: Buffer): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STRONGROOM_')));
  return { ...env, STRONGROOM_DATA_DIR: dataDir, STRONGROOM_WRAPPING_KEY: wrappingKey.toString('hex') };
}

describe('first start on a shared volume', () => {
  it('makes one keyring and shows no share, however many tokenizers race', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sr-race-'));
    const wrappingKey = randomBytes(32);
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { stdout } = await run(process.execPath, ['--import', 'tsx', script], { env: startEnv(dataDir, wrappingKey) });
        return JSON.parse(stdout) as { shares: string[]; key1: string };
      }),
    );
    expect(outcomes.map((o) => o.shares)).toEqual([[], [], [], []]);
    expect(new Set(outcomes.map((o) => o.key1)).size).toBe(1);
    const keyring = Keyring.open(join(dataDir, 'tokenizer', 'keyring.json'), wrappingKey);
    expect(keyring.hasRecovery).toBe(false);
  }, 60_000);

  it('never overwrites a keyring another process created', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-exists-'));
    const file = join(dir, 'keyring.json');
    Keyring.create(file, randomBytes(32));
    expect(() => Keyring.create(file, randomBytes(32))).toThrow(KeyringExistsError);
  });
});
