// `npm run keyring:init`: the one-shot ceremony that creates the keyring (or gives one its recovery key) and hands
// out the five recovery shares: on this command's own terminal, or each encrypted to one holder's age recipient.
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { armor, Encrypter } from 'age-encryption';
import { loadTokenizerConfig, type TokenizerConfig } from './config.js';
import { KEY_BYTES, Keyring, recoveryShares } from './keyring.js';
import { custodyOfFile, KeyringExistsError, privateDir, writePrivateFile } from './keyring-file.js';
import { describeCustody, loadKeyring, sharesNotice, type KeyringPlace } from './keyring-start.js';
import type { Custody, CustodyKind } from './custody.js';

/** Why the ceremony refused; nothing was changed. Its message is for the person at the terminal. */
export class InitError extends Error {
  override name = 'InitError';
}

export interface InitOptions {
  /** Five age recipients (`age1…`), one per share holder, in share order; none: shares go to `show` only. */
  recipients: string[];
  /** Where `share-<n>.age` files are written (created 0700; an existing file is never overwritten). */
  outDir: string;
  /** Show the shares in clear through `show` (the terminal); without recipients this is the only output. */
  print: boolean;
  /** Issue a new set for a keyring that already has one: the old shares stop working. */
  replace: boolean;
  show: (text: string) => void;
  /** Progress lines, free of secrets. */
  notice: (text: string) => void;
}

export interface InitResult {
  created: boolean;
  keyringId: string;
  /** The age files written, share n in files[n-1]. */
  files: string[];
}

const SHARES = 5;

/** Whether something answers on the socket: a running tokenizer would overwrite what this command writes. */
function serving(socketPath: string): Promise<boolean> {
  if (!existsSync(socketPath)) return Promise.resolve(false);
  return new Promise((done) => {
    const s = connect({ path: socketPath });
    const answer = (live: boolean) => {
      s.destroy();
      done(live);
    };
    s.once('connect', () => answer(true));
    s.once('error', () => answer(false));
    s.setTimeout(1000, () => answer(true));
  });
}

/** Parses STRONGROOM_RECOVERY_RECIPIENTS: five distinct age recipients, separated by commas or white space. */
export function parseRecipients(text: string | undefined): string[] {
  const list = (text ?? '').split(/[\s,]+/).filter(Boolean);
  if (list.length === 0) return [];
  if (list.length !== SHARES || new Set(list).size !== SHARES) {
    throw new InitError(`STRONGROOM_RECOVERY_RECIPIENTS must name ${SHARES} different age recipients (one per share holder), got ${list.length}`);
  }
  for (const [i, r] of list.entries()) {
    try {
      new Encrypter().addRecipient(r);
    } catch {
      throw new InitError(`STRONGROOM_RECOVERY_RECIPIENTS: recipient ${i + 1} is not an age recipient (age1…)`);
    }
  }
  return list;
}

/** Share n as an armored age file that only `recipient`'s identity opens (keyring:init and SystemResplitRecoveryKey). */
export async function encryptShare(recipient: string, share: string, n: number, keyringId: string): Promise<string> {
  const e = new Encrypter();
  e.addRecipient(recipient);
  const text = `Strongroom recovery share ${n} of ${SHARES} for keyring ${keyringId} (any 3 rebuild the recovery key):\n${share}\n`;
  return armor.encode(await e.encrypt(text));
}

/**
 * Creates the keyring with its recovery key in one exclusive write, or gives an existing keyring (opened with
 * the configured wrapping key) a recovery key, then hands out the shares. Refuses while a tokenizer serves the
 * keyring: its writes merge under the file lock and would keep the new recovery key, but a tokenizer that never
 * re-reads would still answer from the old one, and the ceremony is meant to run alone. The online path is the
 * tokenizer's own: SystemResplitRecoveryKey (Keyring.resplit), which checks three current shares first.
 */
export async function initKeyring(config: KeyringPlace & Pick<TokenizerConfig, 'socketPath'>, opts: InitOptions): Promise<InitResult> {
  if (opts.recipients.length === 0 && !opts.print) throw new InitError('nowhere to put the shares: give STRONGROOM_RECOVERY_RECIPIENTS or --print');
  if (await serving(config.socketPath)) {
    throw new InitError(
      `a tokenizer is serving on ${config.socketPath}: stop the vault first, keyring:init must be the keyring's only writer ` +
        '(to issue new shares while the vault runs, root calls SystemResplitRecoveryKey with three current shares)',
    );
  }
  const files = opts.recipients.map((_, i) => join(opts.outDir, `share-${i + 1}.age`));
  const taken = files.filter((f) => existsSync(f));
  if (taken.length) throw new InitError(`${taken.join(', ')} already exist: move them away first`);
  if (files.length) privateDir(opts.outDir);

  // A new keyring and its recovery key are written together (loadKeyring's exclusive create), never in two steps.
  const recoveryKey = randomBytes(KEY_BYTES);
  let shares = await recoveryShares(recoveryKey);
  let loaded: { keyring: Keyring; created: boolean };
  try {
    loaded = loadKeyring(config, opts.notice, recoveryKey);
  } catch (err) {
    if (!(err instanceof KeyringExistsError)) throw err;
    // Another first start won a race (for the keyring, or for the development key file): open theirs, or create
    // the keyring now that the key file exists, still with this recovery key in the same write.
    loaded = loadKeyring(config, opts.notice, recoveryKey);
  }
  const { keyring, created } = loaded;
  if (!created) {
    if (keyring.hasRecovery && !opts.replace) {
      throw new InitError('this keyring already has a recovery key, whose shares were issued when it got it; --replace issues a new set and voids the old one');
    }
    shares = await keyring.enableRecovery();
  }

  for (const [i, file] of files.entries()) {
    writePrivateFile(file, await encryptShare(opts.recipients[i]!, shares[i]!, i + 1, keyring.id), 'create');
  }
  if (opts.print) opts.show(sharesNotice(shares));
  return { created, keyringId: keyring.id, files };
}

/** The HSM custody of `settings`, with its key object made now if the token has none by that label. */
export async function openHsm(settings: TokenizerConfig['pkcs11'], notice: (text: string) => void): Promise<Custody> {
  if (!settings) throw new InitError('the HSM settings are missing: set STRONGROOM_PKCS11_MODULE, _TOKEN_LABEL (or _SLOT), _PIN (or _PIN_FILE) and _KEY_LABEL');
  const { Pkcs11Custody } = await import('./custody-pkcs11.js');
  const hsm = Pkcs11Custody.open({ ...settings }, { create: true });
  const flags = hsm.keyFlags();
  if (hsm.created) notice(`Strongroom keyring: made the AES-256 key object ${JSON.stringify(settings.keyLabel)} in the HSM (sensitive, not extractable).\n`);
  if (flags.extractable || !flags.sensitive) {
    notice(`Strongroom keyring: WARNING: the key object ${JSON.stringify(settings.keyLabel)} can leave the HSM (extractable or not sensitive); make a new one for production.\n`);
  }
  return hsm;
}

/**
 * keyring:init --rewrap-to: the same keyring (same keys, same recovery copy, so the same recovery shares) sealed
 * from now on by the other custody, in one locked write; no data changes. To `static`, the wrapping key is
 * STRONGROOM_WRAPPING_KEY (or its file) when given, else a new one written to <dataDir>/tokenizer/wrapping.key.
 * Tokenizers serving meanwhile keep serving from memory; they take the new custody at their next start.
 */
export async function rewrapKeyring(
  config: Pick<TokenizerConfig, 'dataDir' | 'wrappingKey' | 'pkcs11'>,
  to: CustodyKind,
  notice: (text: string) => void,
): Promise<{ keyringId: string; keyFile: string | undefined }> {
  const dir = join(config.dataDir, 'tokenizer');
  const file = join(dir, 'keyring.json');
  if (!existsSync(file)) throw new InitError(`no keyring in ${dir}: run keyring:init first`);
  if (custodyOfFile(file) === to) throw new InitError(`the keyring in ${dir} is sealed by ${to} custody already`);
  const hsm = await openHsm(config.pkcs11, notice);
  try {
    if (to === 'pkcs11') {
      const { keyring } = loadKeyring({ dataDir: config.dataDir, wrappingKey: config.wrappingKey }, notice);
      keyring.rewrapTo(hsm);
      if (keyring.devKeyFile) unlinkSync(keyring.devKeyFile);
      notice(`Strongroom keyring ${keyring.id}: now sealed inside the HSM (${describeCustody(hsm)}). Destroy the old wrapping key and old copies of keyring.json.\n`);
      return { keyringId: keyring.id, keyFile: undefined };
    }
    const keyring = Keyring.open(file, hsm);
    const key = config.wrappingKey ?? randomBytes(KEY_BYTES);
    const keyFile = config.wrappingKey ? undefined : join(dir, 'wrapping.key');
    if (keyFile) writePrivateFile(keyFile, `${key.toString('hex')}\n`, 'create');
    keyring.rewrapTo(key);
    notice(`Strongroom keyring ${keyring.id}: now sealed by a static wrapping key${keyFile ? ` (in ${keyFile}: move it into STRONGROOM_WRAPPING_KEY_FILE's Secret)` : ''}.\n`);
    return { keyringId: keyring.id, keyFile };
  } finally {
    hsm.close();
  }
}

interface InitArgs {
  outDir: string;
  print: boolean;
  replace: boolean;
  pkcs11: boolean;
  rewrapTo: CustodyKind | undefined;
}

const USAGE = 'usage: keyring:init [--out <dir>] [--print] [--replace] [--pkcs11] | keyring:init --rewrap-to static|pkcs11';

function parseArgs(argv: string[]): InitArgs {
  const out: InitArgs = { outDir: resolve('recovery-shares'), print: false, replace: false, pkcs11: false, rewrapTo: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--print') out.print = true;
    else if (a === '--replace') out.replace = true;
    else if (a === '--pkcs11') out.pkcs11 = true;
    else if (a === '--out' && argv[i + 1]) out.outDir = resolve(argv[++i]!);
    else if (a === '--rewrap-to' && (argv[i + 1] === 'static' || argv[i + 1] === 'pkcs11')) out.rewrapTo = argv[++i] as CustodyKind;
    else throw new InitError(`unknown argument ${JSON.stringify(a)}; ${USAGE}`);
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const notice = (text: string) => void process.stderr.write(text);
  if (args.rewrapTo) {
    await rewrapKeyring(loadTokenizerConfig(), args.rewrapTo, notice);
    return;
  }
  const recipients = parseRecipients(process.env.STRONGROOM_RECOVERY_RECIPIENTS);
  // Clear shares go to a terminal only: a pipe may well be a log. --print says the caller knows where it goes.
  const print = args.print || (recipients.length === 0 && process.stdout.isTTY);
  if (recipients.length === 0 && !print) {
    throw new InitError('stdout is not a terminal: give STRONGROOM_RECOVERY_RECIPIENTS, or --print if this output goes nowhere it is kept');
  }
  const config = loadTokenizerConfig();
  const hsm = args.pkcs11 || config.custody === 'pkcs11' ? await openHsm(config.pkcs11, notice) : undefined;
  const result = await initKeyring({ ...config, hsm }, {
    ...args,
    print,
    recipients,
    show: (text) => void process.stdout.write(text),
    notice,
  }).finally(() => hsm?.close());
  process.stderr.write(`Strongroom keyring ${result.keyringId}: ${result.created ? 'created with' : 'given'} a recovery key.\n`);
  for (const [i, f] of result.files.entries()) process.stderr.write(`  share ${i + 1} → ${f} (encrypted to ${recipients[i]})\n`);
}

// Run as a command (tsx or node, through a symlink or not); imported by tests, it does nothing by itself.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main().catch((err: unknown) => {
    process.stderr.write(`keyring:init: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
