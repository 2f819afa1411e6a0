// Opening the keyring at start; on the first start, creating it (with a development wrapping key when none is
// given). A server never shows recovery shares: they come from `npm run keyring:init` (keyring-init.ts).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWrappingKey, type TokenizerConfig } from './config.js';
import { Keyring, KEY_BYTES } from './keyring.js';
import { KeyringError, KeyringExistsError, privateDir, writePrivateFile } from './keyring-file.js';
import { StaticCustody, type Custody } from './custody.js';

const defaultNotice = (text: string) => void process.stderr.write(text);

/** What opens or creates a keyring: the data directory and a static wrapping key, or an HSM custody opened already. */
export type KeyringPlace = Pick<TokenizerConfig, 'dataDir' | 'wrappingKey'> & { hsm?: Custody | undefined };

/**
 * The keyring for this data directory. With an HSM custody, it seals and opens the keyring and nothing else is
 * read. Otherwise, with no wrapping key given, a development one is kept in <dataDir>/tokenizer/wrapping.key
 * (created with the keyring, announced once on stderr by its path).
 */
export function loadKeyring(
  config: KeyringPlace,
  notice: (text: string) => void = defaultNotice,
  /** For a keyring created now: its recovery key, sealed into the very write that creates it. */
  recoveryKey?: Buffer,
): { keyring: Keyring; created: boolean } {
  const dir = join(config.dataDir, 'tokenizer');
  const file = join(dir, 'keyring.json');
  privateDir(dir);
  if (config.hsm) {
    if (existsSync(file)) return { keyring: Keyring.open(file, config.hsm), created: false };
    const keyring = Keyring.create(file, config.hsm, recoveryKey);
    notice(`Strongroom tokenizer: created a new keyring in ${dir}, sealed inside the HSM (${describeCustody(config.hsm)}).\n`);
    return { keyring, created: true };
  }
  const devKeyFile = join(dir, 'wrapping.key');
  let wrappingKey = config.wrappingKey;
  const fromDevFile = !wrappingKey && existsSync(devKeyFile);
  if (fromDevFile) wrappingKey = parseWrappingKey(readFileSync(devKeyFile, 'utf8'), devKeyFile);
  if (existsSync(file)) {
    if (!wrappingKey) {
      throw new KeyringError(`a keyring exists in ${dir} but no wrapping key was given: set STRONGROOM_WRAPPING_KEY or STRONGROOM_WRAPPING_KEY_FILE`);
    }
    const keyring = Keyring.open(file, new StaticCustody(wrappingKey));
    if (fromDevFile) keyring.devKeyFile = devKeyFile;
    return { keyring, created: false };
  }
  let devKeyWritten = false;
  if (!wrappingKey) {
    wrappingKey = randomBytes(KEY_BYTES);
    writePrivateFile(devKeyFile, `${wrappingKey.toString('hex')}\n`, 'create');
    devKeyWritten = true;
  }
  const keyring = Keyring.create(file, new StaticCustody(wrappingKey), recoveryKey);
  if (devKeyWritten) keyring.devKeyFile = devKeyFile;
  notice(
    devKeyWritten || !config.wrappingKey
      ? `Strongroom tokenizer: created a development keyring in ${dir}. Its wrapping key is in ${devKeyFile}. ` +
          'For production, move that key into STRONGROOM_WRAPPING_KEY (or a mounted file named by STRONGROOM_WRAPPING_KEY_FILE) and delete the file.\n'
      : `Strongroom tokenizer: created a new keyring in ${dir}, sealed with the supplied wrapping key.\n`,
  );
  return { keyring, created: true };
}

/** A custody as a log line says it: `module …, token …, key …`; never a PIN. */
export function describeCustody(custody: Custody): string {
  return Object.entries(custody.describe)
    .filter(([k]) => k !== 'custody')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/**
 * The tokenizer's start: open the keyring, or create it in one exclusive write, so that of two tokenizers
 * starting at once on a shared volume exactly one creates it and the other opens that keyring. A keyring created
 * here has no recovery key: shares printed by a server would land in its log (a container's log is shipped and
 * kept), so they are issued only by `npm run keyring:init`, on the terminal or encrypted to their holders.
 */
export async function openKeyring(
  config: KeyringPlace,
  notice: (text: string) => void = defaultNotice,
): Promise<Keyring> {
  let loaded: { keyring: Keyring; created: boolean };
  try {
    loaded = loadKeyring(config, notice);
  } catch (err) {
    if (!(err instanceof KeyringExistsError)) throw err;
    loaded = loadKeyring(config, notice);
  }
  if (!loaded.keyring.hasRecovery) notice(NO_RECOVERY_NOTICE);
  return loaded.keyring;
}

/** Said at every start of a keyring without a recovery key; it holds no secret. */
export const NO_RECOVERY_NOTICE =
  'Strongroom tokenizer: this keyring has no recovery key, so no recovery shares exist (a development keyring may do without). ' +
  'To issue them, stop the vault and run `npm run keyring:init` once: it prints the five shares on its own terminal, ' +
  'or writes each encrypted to one of the five age recipients in STRONGROOM_RECOVERY_RECIPIENTS. A server never prints shares.\n';

/** The five shares as keyring:init shows them on its terminal; never passed to a server's log. */
export function sharesNotice(shares: string[]): string {
  return (
    `Strongroom keyring: recovery key shares (any 3 of these 5 rebuild it; they are shown only this once):\n` +
    shares.map((sh, i) => `  share ${i + 1}: ${sh}\n`).join('') +
    'Give them to five different people. SystemGenerateWrappingKey takes three of them to issue a new wrapping key.\n'
  );
}

/**
 * A keyring without a recovery key gets one now and its shares go to `show`, once. For keyring:init and tests:
 * no server calls it, and `show` is required so that nothing defaults to a process's stderr.
 */
export async function ensureRecovery(keyring: Keyring, show: (text: string) => void): Promise<void> {
  if (keyring.hasRecovery) return;
  show(sharesNotice(await keyring.enableRecovery()));
}
