// Opening the keyring at start; on the first start, creating it (with a development wrapping key when none is
// given) and showing its recovery shares once.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWrappingKey, type TokenizerConfig } from './config.js';
import { Keyring, KEY_BYTES, recoveryShares } from './keyring.js';
import { KeyringError, KeyringExistsError, privateDir, writePrivateFile } from './keyring-file.js';

const defaultNotice = (text: string) => void process.stderr.write(text);

/**
 * The keyring for this data directory. With no wrapping key given, a development one is kept in
 * <dataDir>/tokenizer/wrapping.key (created with the keyring, announced once on stderr by its path).
 */
export function loadKeyring(
  config: Pick<TokenizerConfig, 'dataDir' | 'wrappingKey'>,
  notice: (text: string) => void = defaultNotice,
  /** For a keyring created now: its recovery key, sealed into the very write that creates it. */
  recoveryKey?: Buffer,
): { keyring: Keyring; created: boolean } {
  const dir = join(config.dataDir, 'tokenizer');
  const file = join(dir, 'keyring.json');
  const devKeyFile = join(dir, 'wrapping.key');
  privateDir(dir);
  let wrappingKey = config.wrappingKey;
  const fromDevFile = !wrappingKey && existsSync(devKeyFile);
  if (fromDevFile) wrappingKey = parseWrappingKey(readFileSync(devKeyFile, 'utf8'), devKeyFile);
  if (existsSync(file)) {
    if (!wrappingKey) {
      throw new KeyringError(`a keyring exists in ${dir} but no wrapping key was given: set STRONGROOM_WRAPPING_KEY or STRONGROOM_WRAPPING_KEY_FILE`);
    }
    const keyring = Keyring.open(file, wrappingKey);
    if (fromDevFile) keyring.devKeyFile = devKeyFile;
    return { keyring, created: false };
  }
  let devKeyWritten = false;
  if (!wrappingKey) {
    wrappingKey = randomBytes(KEY_BYTES);
    writePrivateFile(devKeyFile, `${wrappingKey.toString('hex')}\n`, 'create');
    devKeyWritten = true;
  }
  const keyring = Keyring.create(file, wrappingKey, recoveryKey);
  if (devKeyWritten) keyring.devKeyFile = devKeyFile;
  notice(
    devKeyWritten || !config.wrappingKey
      ? `Strongroom tokenizer: created a development keyring in ${dir}. Its wrapping key is in ${devKeyFile}. ` +
          'For production, move that key into STRONGROOM_WRAPPING_KEY (or a mounted file named by STRONGROOM_WRAPPING_KEY_FILE) and delete the file.\n'
      : `Strongroom tokenizer: created a new keyring in ${dir}, sealed with the supplied wrapping key.\n`,
  );
  return { keyring, created: true };
}

/**
 * The tokenizer's start: open the keyring, or create it together with its recovery key in one exclusive write,
 * so that of two tokenizers starting at once on a shared volume exactly one creates it and shows shares, and
 * the other opens that keyring (a recovery key added in a second write could be overwritten by the other's).
 */
export async function openKeyring(
  config: Pick<TokenizerConfig, 'dataDir' | 'wrappingKey'>,
  notice: (text: string) => void = defaultNotice,
): Promise<Keyring> {
  const recoveryKey = randomBytes(KEY_BYTES);
  const shares = await recoveryShares(recoveryKey);
  let loaded: { keyring: Keyring; created: boolean };
  try {
    loaded = loadKeyring(config, notice, recoveryKey);
  } catch (err) {
    if (!(err instanceof KeyringExistsError)) throw err;
    loaded = loadKeyring(config, notice);
  }
  if (loaded.created) notice(sharesNotice(shares));
  // A keyring made before recovery keys existed gets one now.
  else await ensureRecovery(loaded.keyring, notice);
  return loaded.keyring;
}

function sharesNotice(shares: string[]): string {
  return (
    `Strongroom tokenizer: recovery key shares (any 3 of these 5 rebuild it; they are shown only this once):\n` +
    shares.map((sh, i) => `  share ${i + 1}: ${sh}\n`).join('') +
    'Give them to five different people. SystemGenerateWrappingKey takes three of them to issue a new wrapping key.\n'
  );
}

/** A keyring without a recovery key gets one now; its shares are shown once, here, and never again. */
export async function ensureRecovery(keyring: Keyring, notice: (text: string) => void = defaultNotice): Promise<void> {
  if (keyring.hasRecovery) return;
  notice(sharesNotice(await keyring.enableRecovery()));
}
