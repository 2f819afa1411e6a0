// Passwordless login: an image captcha, then a six-digit code sent to the user's email or phone, then a login
// xtoken. Answers and codes are stored hashed, single-use and short-lived; wrong codes are counted.
import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Logger } from 'pino';
import type { Database } from '../store/database.js';
import { VaultError } from '../errors.js';
import type { Credentials } from './credentials.js';
import type { Notifier } from './notifier.js';
import type { Users } from './users.js';
import { nowSeconds } from './durations.js';

const CAPTCHA_SECONDS = 300;
const CODE_SECONDS = 60;
const MAX_ATTEMPTS = 5;
const XTOKEN_SECONDS = 600;

/** The contract answers these with HTTP 200 and `status: error` (the SDKs read the message). */
export class LoginError extends VaultError {
  readonly status = 200;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export class Logins {
  constructor(
    private readonly db: Database,
    private readonly users: Users,
    private readonly credentials: Credentials,
    /** Replaceable: where codes go (tests read them from here). */
    public notifier: Notifier,
    private readonly log: Logger,
  ) {}

  /** Replaceable: draws a captcha (tests draw one whose answer they know). */
  drawCaptcha: () => { text: string; data: string } = () => svgCaptcha.create({ size: 5, noise: 3, ignoreChars: '0oO1ilI' });

  async createCaptcha(): Promise<{ captchacode: string; image: string }> {
    const captcha = this.drawCaptcha();
    const id = randomUUID();
    const now = nowSeconds();
    await this.db.globalStores().logins.addCaptcha(id, sha256(captcha.text.toLowerCase()), now + CAPTCHA_SECONDS, now);
    return { captchacode: id, image: `data:image/svg+xml;base64,${Buffer.from(captcha.data).toString('base64')}` };
  }

  /** True once for a right answer within its lifetime; the captcha is spent either way. */
  private async solve(captchacode: string, answer: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/i.test(captchacode)) return false;
    const row = await this.db.globalStores().logins.spendCaptcha(captchacode);
    return !!row && row.expiresAt > nowSeconds() && same(row.answerHash, sha256(answer.trim().toLowerCase()));
  }

  /** Sends a code when the identity belongs to a user; the answer is the same either way. */
  async prelogin(tenantId: number, mode: 'email' | 'phone', identity: string, answer: string, captchacode: string): Promise<void> {
    if (!(await this.solve(captchacode, answer))) throw new LoginError('captcha-error');
    const now = nowSeconds();
    const row = await this.findUser(tenantId, mode, identity, now);
    if (!row) {
      this.log.info({ tenantId, mode }, 'login code asked for an unknown identity');
      return;
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.db.globalStores().logins.putCode(tenantId, row.token, sha256(`${row.token}:${code}`), now + CODE_SECONDS);
    await this.notifier.sendLoginCode(mode, identity, code);
  }

  /** A login xtoken and the user's token for the right code; each wrong code counts, and five end it. */
  async login(tenantId: number, mode: 'email' | 'phone', identity: string, code: string): Promise<{ xtoken: string; token: string }> {
    const now = nowSeconds();
    const user = await this.findUser(tenantId, mode, identity, now);
    const fail = (why: string) => {
      this.log.info({ tenantId, mode, why }, 'login failed');
      return new LoginError('login-error');
    };
    if (!user) throw fail('unknown identity');
    const { logins } = this.db.globalStores();
    const row = await logins.attempt(tenantId, user.token);
    if (!row) throw fail('no code');
    if (row.expiresAt <= now || row.attempts > MAX_ATTEMPTS) {
      await logins.removeCode(tenantId, user.token);
      throw fail(row.attempts > MAX_ATTEMPTS ? 'too many attempts' : 'code expired');
    }
    if (!same(row.codeHash, sha256(`${user.token}:${code.trim()}`))) throw fail('wrong code');
    // Spending the code is the check that counts: of two logins racing with it, one deletes it and one fails.
    if (!(await logins.spendCode(tenantId, user.token, row.codeHash))) throw fail('code already used');
    const xtoken = await this.credentials.issue('login', tenantId, { userToken: user.token, expiresAt: now + XTOKEN_SECONDS });
    return { xtoken, token: user.token };
  }

  private async findUser(tenantId: number, mode: 'email' | 'phone', identity: string, now: number) {
    try {
      return await this.users.findRow({ em: this.db.forTenant(tenantId), tenantId, now, inTransaction: false }, mode, identity);
    } catch (err) {
      if (err instanceof VaultError && err.status === 404) return null;
      throw err;
    }
  }
}
