// SQL for passwordless login: captchas awaiting their answer, and login codes awaiting their use.
import { GlobalTables } from './global-tables.js';

export interface LoginCodeRow {
  codeHash: string;
  attempts: number;
  expiresAt: number;
}

export class LoginStore extends GlobalTables {
  async addCaptcha(id: string, answerHash: string, expiresAt: number, now: number): Promise<void> {
    await this.sql(`delete from ${this.g}.captchas where expires_at <= $1`, [now]);
    await this.sql(`insert into ${this.g}.captchas (id, answer_hash, expires_at) values ($1, $2, $3)`, [id, answerHash, expiresAt]);
  }

  /** Removes the captcha and answers what it held: a captcha is spent by its first answer. */
  async spendCaptcha(id: string): Promise<{ answerHash: string; expiresAt: number } | null> {
    const [r] = await this.sql(`delete from ${this.g}.captchas where id = $1 returning answer_hash, expires_at`, [id]);
    return r ? { answerHash: r.answer_hash as string, expiresAt: Number(r.expires_at) } : null;
  }

  /** The person's one pending code, replacing any earlier one, with its attempts reset. */
  async putCode(tenantId: number, userToken: string, codeHash: string, expiresAt: number): Promise<void> {
    await this.sql(
      `insert into ${this.g}.login_codes (tenant_id, user_token, code_hash, attempts, expires_at) values ($1, $2, $3, 0, $4)
       on conflict (tenant_id, user_token) do update set code_hash = excluded.code_hash, attempts = 0, expires_at = excluded.expires_at`,
      [tenantId, userToken, codeHash, expiresAt],
    );
  }

  /** Counts one attempt at the person's code and answers the code as it now stands, or null when there is none. */
  async attempt(tenantId: number, userToken: string): Promise<LoginCodeRow | null> {
    const [r] = await this.sql(
      `update ${this.g}.login_codes set attempts = attempts + 1 where tenant_id = $1 and user_token = $2 returning code_hash, attempts, expires_at`,
      [tenantId, userToken],
    );
    return r ? { codeHash: r.code_hash as string, attempts: Number(r.attempts), expiresAt: Number(r.expires_at) } : null;
  }

  async removeCode(tenantId: number, userToken: string): Promise<void> {
    await this.sql(`delete from ${this.g}.login_codes where tenant_id = $1 and user_token = $2`, [tenantId, userToken]);
  }

  /** Removes the code if it is still this one; true for the one caller that spent it. */
  async spendCode(tenantId: number, userToken: string, codeHash: string): Promise<boolean> {
    return (await this.sql(`delete from ${this.g}.login_codes where tenant_id = $1 and user_token = $2 and code_hash = $3 returning 1`, [tenantId, userToken, codeHash])).length > 0;
  }
}
