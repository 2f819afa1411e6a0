// The HSM custody: the keyring's key is a non-extractable, sensitive AES-256 object in a PKCS#11 token, and sealing
// and opening run inside the token (CKM_AES_GCM, the caller's AAD). Loaded only with `pkcs11` custody, so a static
// tokenizer never loads the native addon. One session per process, opened after start (PKCS#11 sessions do not
// survive a fork) and opened again when the token says the session or the device is gone.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pkcs11js, { type GcmParams, type Mechanism } from 'pkcs11js';
import type { Pkcs11Settings } from './config.js';
import { CustodyOpenError, CustodyUnavailableError, type Custody, type KeyFacts } from './custody.js';
import { hsmCallDuration, hsmErrors } from './metrics.js';

type Handle = Buffer;

const NONCE = 12;
const TAG = 16;
const PROBE_AAD = Buffer.from('strongroom/custody-probe');
/** The session or the token went away: open a new session (and look the slot up again) and try once more. */
const SESSION_GONE = new Set(['CKR_SESSION_HANDLE_INVALID', 'CKR_SESSION_CLOSED', 'CKR_DEVICE_REMOVED', 'CKR_TOKEN_NOT_PRESENT', 'CKR_USER_NOT_LOGGED_IN']);
/** The key handle is stale (the object was removed, or restored as a new object): look it up again once. */
const HANDLE_GONE = new Set(['CKR_OBJECT_HANDLE_INVALID', 'CKR_KEY_HANDLE_INVALID']);
/** What a token answers to a ciphertext, tag or AAD that does not match (SoftHSM2 says CKR_GENERAL_ERROR). */
const DOES_NOT_OPEN = new Set(['CKR_ENCRYPTED_DATA_INVALID', 'CKR_ENCRYPTED_DATA_LEN_RANGE', 'CKR_GENERAL_ERROR']);
/** Trying a refused PIN again can lock the token: these are not retried until the settings change (a restart). */
export const PIN_REFUSED = new Set(['CKR_PIN_INCORRECT', 'CKR_PIN_LOCKED', 'CKR_PIN_EXPIRED', 'CKR_PIN_INVALID', 'CKR_PIN_LEN_RANGE']);

/** The return value's name of a pkcs11js error (CKR_…), or the error's own name. */
export function rvOf(err: unknown): string {
  const m = /^(CKR_[A-Z0-9_]+)/.exec((err as Error)?.message ?? '');
  return m ? m[1]! : ((err as Error)?.name ?? 'Error');
}

/** A CK_SLOT_ID as a number (pkcs11js hands it over as a native-endian unsigned long). */
function slotIdOf(h: Handle): number {
  return h.length >= 8 ? Number(h.readBigUInt64LE(0)) : h.readUInt32LE(0);
}

export class Pkcs11Custody implements Custody {
  readonly kind = 'pkcs11';
  readonly describe: Readonly<Record<string, string>>;
  private readonly lib = new pkcs11js.PKCS11();
  /** With `create`: whether open() made the key object. */
  created = false;
  private initialized = false;
  private openedBy = 0;
  private slot: Handle | undefined;
  private session: Handle | undefined;
  /** Key handles of this session, by label. */
  private readonly handles = new Map<string, Handle>();

  private constructor(private readonly settings: Pkcs11Settings) {
    const { module, tokenLabel, slot, keyLabel } = settings;
    this.describe = { custody: 'pkcs11', module, ...(tokenLabel ? { token: tokenLabel } : { slot: String(slot) }), key: keyLabel };
  }

  /** Loads the module, logs in and finds the key; throws CustodyUnavailableError naming module and slot, never the PIN. */
  static open(settings: Pkcs11Settings, opts: { create?: boolean } = {}): Pkcs11Custody {
    const custody = new Pkcs11Custody(settings);
    try {
      custody.lib.load(settings.module);
    } catch (err) {
      throw new CustodyUnavailableError(`the PKCS#11 module ${settings.module} cannot be loaded (${rvOf(err)})`, 'CKR_LOAD_FAILED');
    }
    try {
      if (opts.create) custody.created = custody.createKey();
      custody.probe();
    } catch (err) {
      custody.close();
      throw err;
    }
    return custody;
  }

  /** The label this custody seals the keyring under. */
  get keyLabel(): string {
    return this.settings.keyLabel;
  }

  wrap(plain: Buffer, aad: Buffer, label = this.settings.keyLabel): Buffer {
    const iv = randomBytes(NONCE);
    const body = this.call('encrypt', label, (session, key) => {
      this.lib.C_EncryptInit(session, this.gcm(iv, aad), key);
      return this.lib.C_Encrypt(session, plain, Buffer.alloc(plain.length + TAG + 16));
    });
    return Buffer.concat([iv, body]);
  }

  unwrap(sealed: Buffer, aad: Buffer, label = this.settings.keyLabel): Buffer {
    if (sealed.length < NONCE + TAG) throw new CustodyOpenError('too short to be sealed');
    try {
      return this.call('decrypt', label, (session, key) => {
        this.lib.C_DecryptInit(session, this.gcm(sealed.subarray(0, NONCE), aad), key);
        return Buffer.from(this.lib.C_Decrypt(session, sealed.subarray(NONCE), Buffer.alloc(sealed.length)));
      });
    } catch (err) {
      if (err instanceof CustodyUnavailableError && DOES_NOT_OPEN.has(err.rv ?? '')) {
        throw new CustodyOpenError(`the HSM key ${JSON.stringify(label)} does not open it (${err.rv})`);
      }
      throw err;
    }
  }

  probe(label = this.settings.keyLabel): void {
    const sample = randomBytes(32);
    let back: Buffer;
    try {
      back = this.unwrap(this.wrap(sample, PROBE_AAD, label), PROBE_AAD, label);
    } catch (err) {
      if (err instanceof CustodyOpenError) throw new CustodyUnavailableError(`the HSM key ${JSON.stringify(label)} fails a round trip`, 'CKR_GENERAL_ERROR');
      throw err;
    }
    if (!back.equals(sample)) throw new CustodyUnavailableError(`the HSM key ${JSON.stringify(label)} fails a round trip`, 'CKR_GENERAL_ERROR');
  }

  destroy(label: string): boolean {
    try {
      this.call('destroy', label, (session, key) => this.lib.C_DestroyObject(session, key));
    } catch (err) {
      if (err instanceof CustodyUnavailableError && err.rv === 'CKR_KEY_NOT_FOUND') return false;
      throw err;
    }
    this.handles.delete(label);
    return true;
  }

  /**
   * Makes the AES-256 key object `label` unless the token has one: on the token, private, sensitive and not
   * extractable, for encrypt and decrypt only. Answers whether it was made now.
   */
  createKey(label = this.settings.keyLabel): boolean {
    if (this.find(this.ensureSession(), label)) return false;
    const P = pkcs11js;
    this.timed('generate', () =>
      this.lib.C_GenerateKey(this.ensureSession(), { mechanism: P.CKM_AES_KEY_GEN }, [
        { type: P.CKA_CLASS, value: P.CKO_SECRET_KEY },
        { type: P.CKA_KEY_TYPE, value: P.CKK_AES },
        { type: P.CKA_VALUE_LEN, value: 32 },
        { type: P.CKA_LABEL, value: label },
        { type: P.CKA_TOKEN, value: true },
        { type: P.CKA_PRIVATE, value: true },
        { type: P.CKA_SENSITIVE, value: true },
        { type: P.CKA_EXTRACTABLE, value: false },
        { type: P.CKA_ENCRYPT, value: true },
        { type: P.CKA_DECRYPT, value: true },
        { type: P.CKA_WRAP, value: false },
        { type: P.CKA_UNWRAP, value: false },
      ]),
    );
    return true;
  }

  /** Whether the key object can leave the token: a custody worth its name answers false, false... and true. */
  keyFlags(label = this.settings.keyLabel): { extractable: boolean; sensitive: boolean; neverExtractable: boolean } {
    return this.call('attributes', label, (session, key) => {
      const P = pkcs11js;
      const attrs = this.lib.C_GetAttributeValue(session, key, [{ type: P.CKA_EXTRACTABLE }, { type: P.CKA_SENSITIVE }, { type: P.CKA_NEVER_EXTRACTABLE }]);
      const flag = (i: number) => Boolean((attrs[i]?.value as Buffer | undefined)?.[0]);
      return { extractable: flag(0), sensitive: flag(1), neverExtractable: flag(2) };
    });
  }

  /** What a tenant's KEK must be, read from the object: its type, length and whether it can ever leave the token. */
  keyFacts(label: string): KeyFacts {
    return this.call('attributes', label, (session, key) => {
      const P = pkcs11js;
      const types = [P.CKA_KEY_TYPE, P.CKA_VALUE_LEN, P.CKA_SENSITIVE, P.CKA_EXTRACTABLE, P.CKA_NEVER_EXTRACTABLE, P.CKA_ENCRYPT, P.CKA_DECRYPT];
      const attrs = this.lib.C_GetAttributeValue(session, key, types.map((type) => ({ type })));
      const raw = (i: number) => (attrs[i]?.value as Buffer | undefined) ?? Buffer.alloc(0);
      const ulong = (i: number) => (raw(i).length >= 8 ? Number(raw(i).readBigUInt64LE(0)) : raw(i).length >= 4 ? raw(i).readUInt32LE(0) : -1);
      const flag = (i: number) => Boolean(raw(i)[0]);
      return { aes: ulong(0) === P.CKK_AES, bytes: ulong(1), sensitive: flag(2), extractable: flag(3), neverExtractable: flag(4), encrypt: flag(5), decrypt: flag(6) };
    });
  }

  close(): void {
    this.handles.clear();
    if (this.session) {
      try {
        this.lib.C_CloseSession(this.session);
      } catch {
        // Gone with the device already.
      }
    }
    this.session = undefined;
    if (this.initialized) {
      try {
        this.lib.C_Finalize();
      } catch {
        // Nothing left to release.
      }
    }
    this.initialized = false;
  }

  private gcm(iv: Buffer, aad: Buffer): Mechanism {
    return { mechanism: pkcs11js.CKM_AES_GCM, parameter: { type: pkcs11js.CK_PARAMS_GCM, iv, ivBits: NONCE * 8, aad, tagBits: TAG * 8 } as GcmParams };
  }

  /**
   * Runs `fn` with a session and the key `label`; a session or device that went away is reopened, and a stale key
   * handle looked up again, once. Every other failure is CustodyUnavailableError with the return value's name.
   */
  private call<T>(name: string, label: string, fn: (session: Handle, key: Handle) => T): T {
    for (let attempt = 0; ; attempt++) {
      try {
        const session = this.ensureSession();
        const key = this.handles.get(label) ?? this.find(session, label);
        if (!key) throw new CustodyUnavailableError(`no AES key object labelled ${JSON.stringify(label)} on ${this.where()}`, 'CKR_KEY_NOT_FOUND');
        this.handles.set(label, key);
        return this.timed(name, () => fn(session, key));
      } catch (err) {
        const rv = err instanceof CustodyUnavailableError ? (err.rv ?? '') : rvOf(err);
        if (attempt === 0 && SESSION_GONE.has(rv)) this.dropSession(rv !== 'CKR_USER_NOT_LOGGED_IN');
        else if (attempt === 0 && HANDLE_GONE.has(rv)) this.handles.delete(label);
        else if (err instanceof CustodyUnavailableError) throw err;
        else throw new CustodyUnavailableError(`PKCS#11 ${name} failed on ${this.where()}: ${rv}`, rv);
      }
    }
  }

  private timed<T>(name: string, fn: () => T): T {
    const started = performance.now();
    try {
      return fn();
    } catch (err) {
      const rv = rvOf(err);
      hsmErrors.inc({ call: name, rv });
      // The session handle may be the reason: the caller reopens it. Other errors keep their return value.
      throw new CustodyUnavailableError(`PKCS#11 ${name} failed on ${this.where()}: ${rv}`, rv);
    } finally {
      hsmCallDuration.observe({ call: name }, (performance.now() - started) / 1000);
    }
  }

  /** Module and slot for a log line or an error; never the PIN. */
  private where(): string {
    const { module, tokenLabel, slot } = this.settings;
    return `module ${module}, ${tokenLabel ? `token ${JSON.stringify(tokenLabel)}` : `slot ${slot}`}`;
  }

  private ensureSession(): Handle {
    // A forked child inherits handles that are not its own: start over in it.
    if (this.openedBy !== process.pid) this.dropSession(true);
    if (this.session) return this.session;
    if (!this.initialized) {
      try {
        this.timed('initialize', () => this.lib.C_Initialize());
        this.initialized = true;
      } catch (err) {
        if ((err as CustodyUnavailableError).rv !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') throw err;
      }
    }
    this.slot ??= this.findSlot();
    const session = this.timed('open-session', () => this.lib.C_OpenSession(this.slot!, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION));
    try {
      this.timed('login', () => this.lib.C_Login(session, pkcs11js.CKU_USER, this.settings.pin));
    } catch (err) {
      // Another session of this process logged in already: the login state is the token's, shared by all.
      if ((err as CustodyUnavailableError).rv !== 'CKR_USER_ALREADY_LOGGED_IN') {
        this.lib.C_CloseSession(session);
        throw err;
      }
    }
    this.session = session;
    this.openedBy = process.pid;
    return session;
  }

  private findSlot(): Handle {
    const { tokenLabel, slot } = this.settings;
    const slots = this.timed('slots', () => this.lib.C_GetSlotList(true));
    const found = slots.find((s) => (tokenLabel ? this.lib.C_GetTokenInfo(s).label.trim() === tokenLabel : slotIdOf(s) === slot));
    if (!found) throw new CustodyUnavailableError(`no token present at ${this.where()}`, 'CKR_TOKEN_NOT_PRESENT');
    return found;
  }

  private find(session: Handle, label: string): Handle | undefined {
    return this.timed('find', () => {
      this.lib.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_LABEL, value: label },
      ]);
      try {
        const found = this.lib.C_FindObjects(session, 2);
        if (found.length > 1) throw new Error(`CKR_KEY_NOT_UNIQUE: two key objects are labelled ${JSON.stringify(label)}`);
        return found[0];
      } finally {
        this.lib.C_FindObjectsFinal(session);
      }
    });
  }

  private dropSession(lookSlotUp: boolean): void {
    if (this.session) {
      try {
        this.lib.C_CloseSession(this.session);
      } catch {
        // Already invalid: that is why it is dropped.
      }
    }
    this.session = undefined;
    this.handles.clear();
    if (lookSlotUp) this.slot = undefined;
  }
}
