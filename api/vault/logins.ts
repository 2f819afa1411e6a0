// Passwordless login: a proof-of-work challenge (ALTCHA), then an eight-digit code sent to the email or phone stored
// in the person's profile, then a login xtoken.
// - A challenge is solved once: its row is spent by its first answer.
// - Each UserPrelogin gets its own code, named by the `loginid` it answers: a guess that names a prelogin counts
//   against that code alone, so nobody without the loginid can spend another's code.
// - Wrong codes are remembered per person over a sliding window that no new prelogin resets; a person with too
//   many is locked out (no code is sent, no guess is heard) until the oldest falls out of the window.
// - Known and unknown identities do the same work: an unknown one gets a decoy code row; the code is delivered
//   after the answer, off the request path.
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { createChallenge, verifySolution } from 'altcha-lib/v1';
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { badRequest, VaultError } from '../errors.js';
import type { Credentials } from './credentials.js';
import type { Notifier } from './notifier.js';
import type { Users } from './users.js';
import { nowSeconds } from './durations.js';
import type { LoginStore } from '../store/logins.js';
import { loginFailures, loginLockouts } from '../metrics.js';

export interface LoginSettings {
  /** The challenge's difficulty: the solver tries on average half this many SHA-256 hashes. */
  challengeMaxNumber: number;
  /** Wrong codes a person may have in the window before being locked out. */
  maxFailures: number;
  windowSeconds: number;
}

const CHALLENGE_SECONDS = 300;
const CODE_SECONDS = 300;
const CODE_DIGITS = 8;
/** Wrong guesses at one prelogin's code before that code is gone. */
const ATTEMPTS_PER_CODE = 3;
const XTOKEN_SECONDS = 600;

/** The contract answers these with HTTP 200 and `status: error` (the SDKs read the message). */
export class LoginError extends VaultError {
  readonly status = 200;
}

/** The wrong code that locked a person out: answered like any other; `token` names whose trail it belongs on. */
export class LockoutError extends LoginError {
  constructor(readonly token: string) {
    super('login-error');
  }
}

/** Why a UserLogin failed, as the failures counter labels it (never who). */
type LoginFailure = 'malformed' | 'locked-out' | 'wrong-code' | 'unknown-identity' | 'code-used';

interface Attempt {
  tenantId: number;
  token: string;
  code: string;
  loginid: string | undefined;
  /** The client's address: guesses naming no loginid are tallied per person and address. */
  address: string;
  now: number;
  known: boolean;
}

export const LOGIN_MESSAGES = { noSms: 'Login by phone is not available: no SMS channel is configured' } as const;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How many more SDK guesses all addresses together may make than one address may (see Logins.talliesOf). */
const UNBOUND_SPREAD = 10;
/** The key (a UUID, as the failures table keys people) under which a person's guesses naming no prelogin are tallied from `address` ('*': all). */
const unboundTally = (token: string, address: string) => sha256(`unbound:${token}:${address}`).slice(0, 32).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

export interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

export class Logins {
  /** Deliveries under way (after their answers): tests and shutdown wait for them. */
  private readonly deliveries = new Set<Promise<void>>();

  private readonly users: Users;
  private readonly credentials: Credentials;

  constructor(
    private readonly db: Database,
    people: { users: Users; credentials: Credentials },
    /** Replaceable: where codes go (tests read them from here). */
    public notifier: Notifier,
    private readonly log: Logger,
    readonly settings: LoginSettings,
  ) {
    ({ users: this.users, credentials: this.credentials } = people);
  }

  async createChallenge(): Promise<{ captchacode: string; challenge: Challenge }> {
    const now = nowSeconds();
    // Each challenge has its own HMAC key, kept with it: the row is the state, no secret is shared by replicas.
    const hmacKey = randomBytes(32).toString('base64url');
    const made = await createChallenge({ hmacKey, maxnumber: this.settings.challengeMaxNumber, expires: new Date((now + CHALLENGE_SECONDS) * 1000) });
    const challenge: Challenge = { algorithm: made.algorithm, challenge: made.challenge, maxnumber: made.maxnumber ?? this.settings.challengeMaxNumber, salt: made.salt, signature: made.signature };
    const id = randomUUID();
    await this.db.global().logins.addChallenge(id, JSON.stringify({ ...challenge, hmacKey }), now + CHALLENGE_SECONDS, now);
    return { captchacode: id, challenge };
  }

  /** True once for a right solution within its lifetime; the challenge is spent either way. */
  private async solve(captchacode: string, answer: string): Promise<boolean> {
    if (!UUID.test(captchacode) || !/^\d{1,10}$/.test(answer.trim())) return false;
    const row = await this.db.global().logins.spendChallenge(captchacode.toLowerCase());
    if (!row || row.expiresAt <= nowSeconds()) return false;
    const { hmacKey, ...c } = JSON.parse(row.challenge) as Challenge & { hmacKey: string };
    const number = Number(answer.trim());
    if (number > c.maxnumber) return false;
    return verifySolution({ algorithm: c.algorithm as 'SHA-256', challenge: c.challenge, salt: c.salt, signature: c.signature, number }, hmacKey, true);
  }

  /**
   * Sends a code to the person's stored contact when the identity belongs to someone who is not locked out. The
   * answer, and the work done before it, are the same either way.
   */
  async prelogin(tenantId: number, mode: 'email' | 'phone', identity: string, answer: string, captchacode: string): Promise<{ loginid: string }> {
    if (!this.notifier.channels.has(mode)) throw badRequest(LOGIN_MESSAGES.noSms);
    if (!(await this.solve(captchacode, answer))) throw new LoginError('captcha-error');
    const now = nowSeconds();
    const user = await this.findUser(tenantId, mode, identity, now);
    const locked = user ? await this.lockedUntil(tenantId, user.token, now) : null;
    const loginid = randomUUID();
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    // An unknown identity or a locked-out person gets a decoy: a row bound to nobody, so the work is the same.
    const token = user && locked === null ? user.token : randomUUID();
    await this.db.global().logins.putCode({ id: loginid, tenantId, userToken: token, codeHash: sha256(`${loginid}:${code}`), expiresAt: now + CODE_SECONDS }, now);
    if (!user) this.log.info({ tenantId, mode }, 'login code asked for an unknown identity');
    else if (locked !== null) this.log.warn({ tenantId, mode }, 'login code refused: the person is locked out');
    else this.deliverLater(tenantId, user.token, mode, code);
    return { loginid };
  }

  /**
   * A login xtoken and the user's token for the right code. With `loginid`, only that prelogin's code is tried;
   * without (the SDKs' UserLogin), any of the person's live codes. Every wrong code counts against the person; the
   * one that locks them out throws a LockoutError (the same answer), so the operation can put it on their trail.
   */
  async login(tenantId: number, mode: 'email' | 'phone', identity: string, code: string, bound: { loginid?: string | undefined; address?: string | undefined } = {}): Promise<{ xtoken: string; token: string }> {
    const { loginid } = bound;
    const now = nowSeconds();
    const fail = (reason: LoginFailure) => {
      loginFailures.inc({ reason });
      this.log.info({ tenantId, mode, why: reason }, 'login failed');
      return new LoginError('login-error');
    };
    if (loginid !== undefined && !UUID.test(loginid)) throw fail('malformed');
    const user = await this.findUser(tenantId, mode, identity, now);
    // An unknown identity is tried as a person nobody is: the same statements run.
    const attempt = { tenantId, token: user?.token ?? randomUUID(), code: code.trim(), loginid: loginid?.toLowerCase(), address: bound.address ?? '', now, known: user !== null };
    const verdict = await this.db.writeGlobal((tx) => this.judge(tx.logins, attempt));
    if (verdict === 'locked-now') {
      fail('wrong-code');
      loginLockouts.inc();
      throw new LockoutError(attempt.token);
    }
    if (verdict !== 'ok' || !user) throw fail(verdict === 'ok' ? 'code-used' : verdict);
    const xtoken = await this.credentials.issue('login', tenantId, { userToken: user.token, expiresAt: now + XTOKEN_SECONDS });
    return { xtoken, token: user.token };
  }

  /**
   * One attempt, under the person's lock (their attempts run one at a time on every replica). The failure is
   * recorded before the code is compared, and forgotten only once a right code is spent.
   */
  private async judge(logins: LoginStore, a: Attempt): Promise<'ok' | 'locked-now' | LoginFailure> {
    await logins.lockPerson(a.tenantId, a.token);
    const tallies = this.talliesOf(a);
    if ((await this.lockedUntil(a.tenantId, a.token, a.now, logins)) !== null) return 'locked-out';
    for (const t of tallies) if (t.key !== a.token && (await this.lockedUntil(a.tenantId, t.key, a.now, logins, t.limit)) !== null) return 'locked-out';
    for (const t of tallies) await logins.addFailure(a.tenantId, t.key, a.now);
    const candidates = a.loginid !== undefined ? [await logins.attempt(a.tenantId, a.token, a.loginid)] : await logins.liveCodes(a.tenantId, a.token, a.now);
    const match = candidates.find((c) => c !== null && c.expiresAt > a.now && c.attempts <= ATTEMPTS_PER_CODE && same(c.codeHash, sha256(`${c.id}:${a.code}`)));
    if (!match) {
      for (const c of candidates) if (c && c.attempts >= ATTEMPTS_PER_CODE) await logins.removeCode(c.id);
      // Only the person's own count locks them out (and is an event on their trail); the tallies of guesses naming
      // no loginid stop only such guesses, silently.
      const lockedNow = a.loginid !== undefined && (await this.lockedUntil(a.tenantId, a.token, a.now, logins)) !== null;
      if (!a.known) return 'unknown-identity';
      return lockedNow ? 'locked-now' : 'wrong-code';
    }
    // Spending the code is the check that counts: of two logins racing with it, one deletes it and one fails.
    if (!a.known || !(await logins.spendCode(match.id))) return 'code-used';
    for (const t of tallies) await logins.removeFailure(a.tenantId, t.key, a.now);
    return 'ok';
  }

  /**
   * Where an attempt's failure counts. Only a guess that names a prelogin counts toward the person's lockout.
   * Guesses naming none (the SDKs') are tallied apart, per client address and, more loosely, over all addresses:
   * nobody locks a person out without a solved challenge, one address cannot stop the SDK logins of another (the
   * service's own), and guesses spread over many addresses still meet a bound (UNBOUND_SPREAD times the tally).
   */
  private talliesOf(a: Attempt): { key: string; limit: number }[] {
    const max = this.settings.maxFailures;
    if (a.loginid !== undefined) return [{ key: a.token, limit: max }];
    return [
      { key: unboundTally(a.token, a.address), limit: max },
      { key: unboundTally(a.token, '*'), limit: max * UNBOUND_SPREAD },
    ];
  }

  /** Whether `loginid` names a prelogin whose code is live with attempts left: a login under way. */
  async isUnderWay(tenantId: number, loginid: string): Promise<boolean> {
    if (!UUID.test(loginid)) return false;
    return this.db.global().logins.isLive(tenantId, loginid.toLowerCase(), nowSeconds(), ATTEMPTS_PER_CODE);
  }

  /** When a locked-out person may try again, or null when they are not locked out. */
  private async lockedUntil(tenantId: number, token: string, now: number, logins = this.db.global().logins, limit = this.settings.maxFailures): Promise<number | null> {
    const { count, oldest } = await logins.failures(tenantId, token, now - this.settings.windowSeconds);
    return count >= limit ? (oldest ?? now) + this.settings.windowSeconds : null;
  }

  /** Sends the code to the contact in the person's profile, after the answer; a failure is logged, never shown. */
  private deliverLater(tenantId: number, token: string, mode: 'email' | 'phone', code: string): void {
    const delivery = (async () => {
      const now = nowSeconds();
      const { profile } = await this.users.find({ stores: this.db.stores(tenantId), tenantId, now }, 'token', token);
      const to = profile[mode];
      if (typeof to !== 'string' || !to.trim()) {
        this.log.warn({ tenantId, mode }, 'login code not sent: the profile holds no such contact');
        return;
      }
      await this.notifier.sendLoginCode(mode, to.trim(), code);
    })()
      .catch((err: unknown) => this.log.error({ err: { message: (err as Error).message }, tenantId, mode }, 'login code delivery failed'))
      .finally(() => this.deliveries.delete(delivery));
    this.deliveries.add(delivery);
  }

  /** Waits for the deliveries under way. */
  async settled(): Promise<void> {
    await Promise.all([...this.deliveries]);
  }

  private async findUser(tenantId: number, mode: 'email' | 'phone', identity: string, now: number) {
    try {
      return await this.users.findRow({ stores: this.db.stores(tenantId), tenantId, now }, mode, identity);
    } catch (err) {
      if (err instanceof VaultError && err.status === 404) return null;
      throw err;
    }
  }

  /** Forgets old wrong codes, spent challenges and codes past their time (the sweeper). */
  async sweep(now: number): Promise<void> {
    await this.db.global().logins.sweep(now, this.settings.windowSeconds);
  }
}
