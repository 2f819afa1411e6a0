// The pkcs11 custody against a real SoftHSM2 token (no mock of PKCS#11): the key it makes never leaves the token,
// seals are bound to their AAD, the keyring moves static → pkcs11 → static with its keys and recovery copy intact,
// a refused PIN is named without the PIN, a lost session is reopened, and a removed key is reported unavailable.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { combine } from 'shamir-secret-sharing';
import pkcs11js from 'pkcs11js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Pkcs11Custody } from '../../tokenizer/custody-pkcs11.js';
import { CustodyOpenError, CustodyUnavailableError } from '../../tokenizer/custody.js';
import { initKeyring, rewrapKeyring } from '../../tokenizer/keyring-init.js';
import { Keyring } from '../../tokenizer/keyring.js';
import { custodyOfFile, openRecoveryCopy } from '../../tokenizer/keyring-file.js';
import { loadKeyring } from '../../tokenizer/keyring-start.js';
import { registry } from '../../tokenizer/metrics.js';
import { createToken, NO_SOFTHSM, type TestToken } from '../fixtures/softhsm.js';

let token: TestToken;
let dataDir: string;
const opened: Pkcs11Custody[] = [];

function open(settings = token.settings, create = true): Pkcs11Custody {
  const c = Pkcs11Custody.open(settings, { create });
  opened.push(c);
  return c;
}

beforeEach(() => {
  if (NO_SOFTHSM) return;
  token = createToken();
  // SoftHSM2 reads its configuration when a process initialises it: this test's token.
  process.env.SOFTHSM2_CONF = token.conf;
  dataDir = mkdtempSync(join(tmpdir(), 'sr-hsm-'));
});

afterEach(() => {
  for (const c of opened.splice(0)) c.close();
  token?.remove();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  delete process.env.SOFTHSM2_CONF;
});

describe.skipIf(NO_SOFTHSM)(`pkcs11 custody on SoftHSM2${NO_SOFTHSM ? ` (skipped: ${NO_SOFTHSM})` : ''}`, () => {
  it('makes a sensitive, non-extractable AES-256 key whose value the token refuses to show', () => {
    const hsm = open();
    expect(hsm.created).toBe(true);
    expect(hsm.keyFlags()).toEqual({ extractable: false, sensitive: true, neverExtractable: true });
    // A second open finds it rather than making another.
    hsm.close();
    expect(open().created).toBe(false);
  });

  it('seals inside the token with AES-GCM bound to the AAD: another AAD, or altered bytes, do not open', () => {
    const hsm = open();
    const secret = randomBytes(48);
    const sealed = hsm.wrap(secret, Buffer.from('keyring:a'));
    expect(sealed.length).toBe(12 + 48 + 16);
    expect(hsm.unwrap(sealed, Buffer.from('keyring:a')).equals(secret)).toBe(true);
    expect(() => hsm.unwrap(sealed, Buffer.from('keyring:b'))).toThrow(CustodyOpenError);
    const altered = Buffer.from(sealed);
    altered[20]! ^= 1;
    expect(() => hsm.unwrap(altered, Buffer.from('keyring:a'))).toThrow(CustodyOpenError);
  });

  it('creates a keyring sealed by the HSM, and opens it again with the HSM alone', async () => {
    const hsm = open();
    let shown = '';
    await initKeyring({ dataDir, wrappingKey: undefined, hsm, socketPath: join(dataDir, 'none.sock') }, {
      recipients: [], outDir: dataDir, print: true, replace: false, show: (t) => (shown += t), notice: () => {},
    });
    const file = join(dataDir, 'tokenizer', 'keyring.json');
    expect(custodyOfFile(file)).toBe('pkcs11');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const first = Keyring.open(file, hsm);
    expect(doc.id).toBe(first.id);
    // No wrapping key anywhere: the development key file is never made under an HSM.
    expect(() => readFileSync(join(dataDir, 'tokenizer', 'wrapping.key'))).toThrow();
    // The recovery copy opens with the shares keyring:init showed.
    const shares = [...shown.matchAll(/share \d: ([0-9a-f]+)/g)].map((m) => Uint8Array.from(Buffer.from(m[1]!, 'hex')));
    const recoveryKey = Buffer.from(await combine(shares.slice(0, 3)));
    const keys = openRecoveryCopy(recoveryKey, doc.active, doc.versions, doc.recovery);
    expect(keys.get(1)!.equals(first.key(1)!)).toBe(true);
    // A static key cannot open it, and says why.
    expect(() => loadKeyring({ dataDir, wrappingKey: randomBytes(32) }, () => {})).toThrow(/sealed by pkcs11 custody.*--rewrap-to static/);
  });

  it('moves a keyring static → pkcs11 → static: the same keys and the same recovery shares, no wrapping key left behind', async () => {
    let shown = '';
    await initKeyring({ dataDir, wrappingKey: undefined, socketPath: join(dataDir, 'none.sock') }, {
      recipients: [], outDir: dataDir, print: true, replace: false, show: (t) => (shown += t), notice: () => {},
    });
    const devKey = join(dataDir, 'tokenizer', 'wrapping.key');
    const before = loadKeyring({ dataDir, wrappingKey: undefined }, () => {}).keyring;
    const file = before.file;

    await rewrapKeyring({ dataDir, wrappingKey: undefined, pkcs11: token.settings }, 'pkcs11', () => {});
    expect(custodyOfFile(file)).toBe('pkcs11');
    expect(() => readFileSync(devKey)).toThrow();
    const hsm = open(token.settings, false);
    const inHsm = Keyring.open(file, hsm);
    expect(inHsm.id).toBe(before.id);
    expect(inHsm.key(1)!.equals(before.key(1)!)).toBe(true);
    hsm.close();

    const back = await rewrapKeyring({ dataDir, wrappingKey: undefined, pkcs11: token.settings }, 'static', () => {});
    expect(back.keyFile).toBe(devKey);
    const again = loadKeyring({ dataDir, wrappingKey: undefined }, () => {}).keyring;
    expect(again.key(1)!.equals(before.key(1)!)).toBe(true);
    // The shares keyring:init showed at the start still rebuild the key that opens the recovery copy.
    const shares = [...shown.matchAll(/share \d: ([0-9a-f]+)/g)].map((m) => m[1]!);
    const newKey = await again.rewrap(shares.slice(2, 5));
    expect(newKey.length).toBe(32);
  });

  it('names module and token when the PIN is refused, and never the PIN', () => {
    open().close();
    const wrong = { ...token.settings, pin: 'not-the-pin-0451' };
    let err: unknown;
    try {
      open(wrong);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CustodyUnavailableError);
    expect((err as CustodyUnavailableError).rv).toBe('CKR_PIN_INCORRECT');
    expect((err as Error).message).toContain(token.settings.module);
    expect((err as Error).message).toContain(token.settings.tokenLabel);
    expect((err as Error).message).not.toContain('not-the-pin-0451');
    expect((err as Error).message).not.toContain(token.settings.pin);
  });

  it('opens a new session when the token closed its own (CKR_SESSION_HANDLE_INVALID), and counts the error by return value', async () => {
    const hsm = open();
    const sealed = hsm.wrap(Buffer.from('x'), Buffer.from('a'));
    // Another handle on the same library in this process closes every session of the slot, as a token reset would.
    const other = new pkcs11js.PKCS11();
    other.load(token.settings.module);
    const slot = other.C_GetSlotList(true).find((s) => other.C_GetTokenInfo(s).label.trim() === token.settings.tokenLabel)!;
    other.C_CloseAllSessions(slot);
    expect(hsm.unwrap(sealed, Buffer.from('a')).toString()).toBe('x');
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/strongroom_tokenizer_hsm_errors_total\{call="decrypt",rv="CKR_SESSION_HANDLE_INVALID"\} [1-9]/);
    expect(metrics).toMatch(/strongroom_tokenizer_hsm_call_duration_seconds_count\{call="decrypt"\} [1-9]/);
  });

  it('reports a removed key object as unavailable, and works again once the object is restored', () => {
    const hsm = open();
    const backup = token.backup();
    token.deleteKey();
    expect(() => hsm.probe()).toThrow(CustodyUnavailableError);
    token.restore(backup);
    expect(() => hsm.probe()).not.toThrow();
  });
});
