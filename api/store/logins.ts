// SQL for passwordless login: challenges awaiting their answer, the codes of each prelogin, and wrong codes
// remembered per person.
import { GlobalTables } from './global-tables.js';

export interface LoginCodeRow {
  id: string;
  userToken: string;
  codeHash: string;
  attempts: number;
  expiresAt: number;
}

const codeOf = (r: Record<string, unknown>): LoginCodeRow => ({
  id: r.id as string,
  userToken: r.user_token as string,
  codeHash: r.code_hash as string,
  attempts: Number(r.attempts),
  expiresAt: Number(r.expires_at),
});

export class LoginStore extends GlobalTables {
  async addChallenge(id: string, challenge: string, expiresAt: number, now: number): Promise<void> {
    await this.sql(`delete from ${this.g}.captchas where expires_at <= $1`, [now]);
    await this.sql(`insert into ${this.g}.captchas (id, challenge, expires_at) values ($1, $2, $3)`, [id, challenge, expiresAt]);
  }

  /** Removes the challenge and answers what it held: a challenge is spent by its first answer. */
  async spendChallenge(id: string): Promise<{ challenge: string; expiresAt: number } | null> {
    const [r] = await this.sql(`delete from ${this.g}.captchas where id = $1 returning challenge, expires_at`, [id]);
    return r ? { challenge: r.challenge as string, expiresAt: Number(r.expires_at) } : null;
  }

  /** One prelogin's code. Earlier codes stay: each is bound to the prelogin that asked for it. */
  async putCode(code: { id: string; tenantId: number; userToken: string; codeHash: string; expiresAt: number }, now: number): Promise<void> {
    const { id, tenantId, userToken, codeHash, expiresAt } = code;
    await this.sql(`delete from ${this.g}.login_codes where expires_at <= $1`, [now]);
    await this.sql(`insert into ${this.g}.login_codes (id, tenant_id, user_token, code_hash, attempts, expires_at) values ($1, $2, $3, $4, 0, $5)`, [
      id,
      tenantId,
      userToken,
      codeHash,
      expiresAt,
    ]);
  }

  /** Counts one attempt at this prelogin's code and answers it as it now stands, or null when there is none. */
  async attempt(tenantId: number, userToken: string, id: string): Promise<LoginCodeRow | null> {
    const [r] = await this.sql(
      `update ${this.g}.login_codes set attempts = attempts + 1 where id = $1 and tenant_id = $2 and user_token = $3
       returning id, user_token, code_hash, attempts, expires_at`,
      [id, tenantId, userToken],
    );
    return r ? codeOf(r) : null;
  }

  /** The person's live codes, for a login that names no prelogin (the SDKs' UserLogin). */
  async liveCodes(tenantId: number, userToken: string, now: number): Promise<LoginCodeRow[]> {
    const rows = await this.sql(
      `select id, user_token, code_hash, attempts, expires_at from ${this.g}.login_codes where tenant_id = $1 and user_token = $2 and expires_at > $3`,
      [tenantId, userToken, now],
    );
    return rows.map(codeOf);
  }

  /** Whether this prelogin's code is live and has attempts left (whoever it is for). */
  async isLive(tenantId: number, id: string, now: number, maxAttempts: number): Promise<boolean> {
    const rows = await this.sql(`select 1 from ${this.g}.login_codes where id = $1 and tenant_id = $2 and expires_at > $3 and attempts < $4`, [id, tenantId, now, maxAttempts]);
    return rows.length > 0;
  }

  async removeCode(id: string): Promise<void> {
    await this.sql(`delete from ${this.g}.login_codes where id = $1`, [id]);
  }

  /** Removes the code if it is still there; true for the one caller that spent it. */
  async spendCode(id: string): Promise<boolean> {
    return (await this.sql(`delete from ${this.g}.login_codes where id = $1 returning 1`, [id])).length > 0;
  }

  /** Remembers one wrong code for the person. */
  async addFailure(tenantId: number, userToken: string, now: number): Promise<void> {
    await this.sql(`insert into ${this.g}.login_failures (tenant_id, user_token, at) values ($1, $2, $3)`, [tenantId, userToken, now]);
  }

  /**
   * Holds the person's login lock until the transaction ends: their attempts run one at a time, on every replica,
   * so no burst of guesses passes the lockout check before the others are counted.
   */
  async lockPerson(tenantId: number, userToken: string): Promise<void> {
    await this.sql('select pg_advisory_xact_lock(hashtext($1))', [`strongroom:login:${tenantId}:${userToken}`]);
  }

  /** Forgets one wrong code recorded at `at` (the one a right code recorded before it was compared). */
  async removeFailure(tenantId: number, userToken: string, at: number): Promise<void> {
    await this.sql(
      `delete from ${this.g}.login_failures where ctid = (select ctid from ${this.g}.login_failures where tenant_id = $1 and user_token = $2 and at = $3 limit 1)`,
      [tenantId, userToken, at],
    );
  }

  /** The person's wrong codes since `since`, and the oldest of them (when the lockout lifts). */
  async failures(tenantId: number, userToken: string, since: number): Promise<{ count: number; oldest: number | null }> {
    const [r] = await this.sql(`select count(*)::int as n, min(at) as oldest from ${this.g}.login_failures where tenant_id = $1 and user_token = $2 and at > $3`, [
      tenantId,
      userToken,
      since,
    ]);
    return { count: Number(r?.n ?? 0), oldest: r?.oldest == null ? null : Number(r.oldest) };
  }

  /** Forgets wrong codes older than the window and codes past their time (the sweeper). */
  async sweep(now: number, windowSeconds: number): Promise<void> {
    await this.sql(`delete from ${this.g}.login_failures where at <= $1`, [now - windowSeconds]);
    await this.sql(`delete from ${this.g}.login_codes where expires_at <= $1`, [now]);
    await this.sql(`delete from ${this.g}.captchas where expires_at <= $1`, [now]);
  }
}
