// Rate limits that hold across replicas: rate-limiter-flexible's PostgreSQL limiter, counting in the vault's own
// database (store/rate-limits.ts). Per client address and per tenant on the public login calls, and per client
// address on failed authentication. A client found over a limit is also remembered in this process, so a blocked
// address is turned away before its token is even looked at, without a database round trip.
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/database.js';
import { RATE_LIMIT_SCHEMA, RATE_LIMIT_TABLE } from '../store/rate-limits.js';
import { TooManyRequestsError, Messages } from '../errors.js';

/** Every limit is a count per minute; 0 turns that limit off (e.g. behind a gateway that limits already). */
export interface LimitSettings {
  /** Public login calls (CaptchaCreate, UserPrelogin, UserLogin) per client address per minute. */
  publicPerAddress: number;
  /** Public login calls per tenant per minute, whoever makes them. */
  publicPerTenant: number;
  /** Failed authentications per client address per minute, before the address is blocked. */
  authFailuresPerAddress: number;
  /** How long an address over the failed-authentication limit is blocked. */
  authBlockSeconds: number;
}

export class Limits {
  private readonly publicByAddress: RateLimiterPostgres;
  private readonly publicByTenant: RateLimiterPostgres;
  private readonly authFailures: RateLimiterPostgres;
  /** Addresses this process has seen over the failed-authentication limit, until their block ends (ms). */
  private readonly blocked = new LRUCache<string, number>({ max: 100_000 });

  constructor(
    db: Database,
    readonly settings: LimitSettings,
  ) {
    const storeClient = { query: (q: { text: string; values?: unknown[] }) => db.globalStores().rateLimits.query(q) };
    const common = { storeClient, storeType: 'client', schemaName: RATE_LIMIT_SCHEMA, tableName: RATE_LIMIT_TABLE, tableCreated: true, clearExpiredByTimeout: false };
    this.publicByAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'public-address', points: Math.max(1, settings.publicPerAddress), duration: 60 });
    this.publicByTenant = new RateLimiterPostgres({ ...common, keyPrefix: 'public-tenant', points: Math.max(1, settings.publicPerTenant), duration: 60 });
    this.authFailures = new RateLimiterPostgres({
      ...common,
      keyPrefix: 'auth-failure',
      points: Math.max(1, settings.authFailuresPerAddress),
      duration: 60,
      blockDuration: settings.authBlockSeconds,
    });
  }

  /** One public login call from `address` for `tenantId`; 429 when either limit is spent. */
  async publicCall(address: string, tenantId: number): Promise<void> {
    await Promise.all([
      this.settings.publicPerAddress ? consume(this.publicByAddress, address) : undefined,
      this.settings.publicPerTenant ? consume(this.publicByTenant, String(tenantId)) : undefined,
    ]);
  }

  /** Throws 429 when `address` is blocked for failed authentications: checked before any token is looked at. */
  checkAddress(address: string): void {
    if (!this.blocked.size) return;
    const until = this.blocked.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blocked.delete(address);
      return;
    }
    throw new TooManyRequestsError(Messages.tooManyRequests, Math.ceil(left / 1000));
  }

  /** Counts a failed authentication from `address`; the address is blocked once over the limit. */
  async authFailed(address: string): Promise<void> {
    if (!this.settings.authFailuresPerAddress) return;
    try {
      await this.authFailures.consume(address);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      this.blocked.set(address, Date.now() + res.msBeforeNext);
    }
  }
}

async function consume(limiter: RateLimiterPostgres, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (res instanceof RateLimiterRes) throw new TooManyRequestsError(Messages.tooManyRequests, Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    throw res;
  }
}
