// Rate limits. Counts that must hold across replicas (public calls, refusals) live in the vault's own database,
// through rate-limiter-flexible's PostgreSQL limiter (store/rate-limits.ts); calls per credential are counted in
// each replica's memory, so no authenticated call pays a database round trip for them.
// Only refusals (a failed authentication, a shared record not found) are counted against a client: per address,
// per token prefix and per tenant named. Past a budget the key is backed off (Backoff, below); a valid
// credential is served whatever its address did, so clients sharing an address (NAT, an ingress) cannot be
// locked out by one of them.
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../store/database.js';
import { RATE_LIMIT_SCHEMA, RATE_LIMIT_TABLE } from '../store/rate-limits.js';
import { TooManyRequestsError, Messages } from '../errors.js';
import type { Principal } from './credentials.js';

/** Every limit is a count per minute; 0 turns that limit off (e.g. behind a gateway that limits already). */
export interface LimitSettings {
  /** Public login calls of each operation (CaptchaCreate, UserPrelogin, UserLogin) per client address per minute. */
  publicPerAddress: number;
  /** Public login calls per tenant named (or per unknown name) per minute, whoever makes them. */
  publicPerTenant: number;
  /** SharedRecordGet calls per client address per minute. */
  sharedPerAddress: number;
  /** Refusals per client address per minute, before its refusals are answered 429. */
  authFailuresPerAddress: number;
  /** Failed authentications per token prefix (its first 8 characters) per minute, from any address. */
  authFailuresPerPrefix: number;
  /** Failed authentications naming a tenant (X-Bunker-Tenant) per minute, from any address. */
  authFailuresPerTenant: number;
  /** The longest back-off of a key past its budget, in seconds. */
  authBlockSeconds: number;
  /** Calls per tenant-admin or role credential per minute (the root token is not limited). */
  callsPerCredential: number;
  /** Calls per login xtoken per minute. */
  callsPerLoginXtoken: number;
}

/** What a refusal counts against: the client's address and, where known, the token's prefix and the tenant named. */
export interface RefusalKeys {
  address: string;
  token?: string | undefined;
  tenant?: string | undefined;
}

const WINDOW_SECONDS = 60;
const PREFIX_LENGTH = 8;

interface Budget {
  limiter: RateLimiterPostgres;
  keyOf: (keys: RefusalKeys) => string | undefined;
}

export class Limits {
  private readonly publicByAddress: RateLimiterPostgres;
  private readonly publicByTenant: RateLimiterPostgres;
  private readonly sharedByAddress: RateLimiterPostgres;
  private readonly refusalBudgets: Budget[];
  private readonly byCredential: RateLimiterMemory;
  private readonly byLoginXtoken: RateLimiterMemory;
  private readonly backoff: Backoff;

  constructor(
    db: Database,
    readonly settings: LimitSettings,
  ) {
    const storeClient = { query: (q: { text: string; values?: unknown[] }) => db.global().rateLimits.query(q) };
    const common = { storeClient, storeType: 'client', schemaName: RATE_LIMIT_SCHEMA, tableName: RATE_LIMIT_TABLE, tableCreated: true, clearExpiredByTimeout: false };
    const shared = (keyPrefix: string, points: number) => new RateLimiterPostgres({ ...common, keyPrefix, points: Math.max(1, points), duration: WINDOW_SECONDS });
    this.publicByAddress = shared('public-address', settings.publicPerAddress);
    this.publicByTenant = shared('public-tenant', settings.publicPerTenant);
    this.sharedByAddress = shared('shared-address', settings.sharedPerAddress);
    const budget = (keyPrefix: string, points: number, keyOf: Budget['keyOf']): Budget[] => (points ? [{ limiter: shared(keyPrefix, points), keyOf }] : []);
    this.refusalBudgets = [
      ...budget('auth-failure', settings.authFailuresPerAddress, (k) => `address:${addressKey(k.address)}`),
      ...budget('auth-failure-prefix', settings.authFailuresPerPrefix, (k) => (k.token && k.token.length >= PREFIX_LENGTH ? `prefix:${k.token.slice(0, PREFIX_LENGTH).toLowerCase()}` : undefined)),
      ...budget('auth-failure-tenant', settings.authFailuresPerTenant, (k) => (k.tenant ? `tenant:${k.tenant}` : undefined)),
    ];
    this.byCredential = new RateLimiterMemory({ keyPrefix: 'credential', points: Math.max(1, settings.callsPerCredential), duration: WINDOW_SECONDS });
    this.byLoginXtoken = new RateLimiterMemory({ keyPrefix: 'login-xtoken', points: Math.max(1, settings.callsPerLoginXtoken), duration: WINDOW_SECONDS });
    this.backoff = new Backoff(settings.authBlockSeconds, WINDOW_SECONDS);
  }

  /**
   * One public login call of `operation` from `address`: 429 once the address has spent that operation's calls.
   * Each operation has its own bucket, so free calls (CaptchaCreate) do not spend those that follow a solved
   * challenge. Checked before the body.
   */
  async publicAddress(address: string, operation: string): Promise<void> {
    if (this.settings.publicPerAddress) await consume(this.publicByAddress, `${operation}:${addressKey(address)}`);
  }

  /**
   * One public login call in the bucket of the tenant the request named: the name itself, known or not, so an
   * unknown name neither shares the main tenant's bucket nor tells a known name from an unknown one.
   */
  async publicTenant(bucket: string): Promise<void> {
    if (this.settings.publicPerTenant) await consume(this.publicByTenant, bucket);
  }

  /** One anonymous shared-record retrieval from `address`; 429 once it has spent its calls. */
  async sharedCall(address: string): Promise<void> {
    if (this.settings.sharedPerAddress) await consume(this.sharedByAddress, addressKey(address));
  }

  /** 429 while any of the keys is backed off: checked before a refusable call does work, in memory only. */
  throttled(keys: RefusalKeys): void {
    const wait = this.backoff.waiting(this.keysOf(keys));
    if (wait > 0) throw new TooManyRequestsError(Messages.tooManyRequests, wait);
  }

  /**
   * Counts one refusal against its keys. Within every budget it returns (the caller answers its own refusal);
   * past one it throws 429, and the key is backed off for longer each time it is found past its budget again.
   */
  async refused(keys: RefusalKeys): Promise<void> {
    this.throttled(keys);
    const counted = this.refusalBudgets.map((b) => ({ limiter: b.limiter, key: b.keyOf(keys) })).filter((c): c is { limiter: RateLimiterPostgres; key: string } => !!c.key);
    const spent = await Promise.all(counted.map(async (c) => ((await overBudget(c.limiter, c.key)) ? c.key : null)));
    const over = spent.filter((k): k is string => k !== null);
    if (over.length) throw new TooManyRequestsError(Messages.tooManyRequests, this.backoff.strike(over));
    this.backoff.forgive(counted.map((c) => c.key));
  }

  /** One authenticated call by `principal`: 429 once its credential has spent its calls. The root token is free. */
  async credentialCall(principal: Pick<Principal, 'credentialId' | 'kind'>): Promise<void> {
    if (principal.kind === 'root' || principal.kind === 'public') return;
    const login = principal.kind === 'login';
    if (!(login ? this.settings.callsPerLoginXtoken : this.settings.callsPerCredential)) return;
    await consume(login ? this.byLoginXtoken : this.byCredential, principal.credentialId);
  }

  private keysOf(keys: RefusalKeys): string[] {
    return this.refusalBudgets.map((b) => b.keyOf(keys)).filter((k): k is string => !!k);
  }
}

/** True when `key` had already spent its points (this one is counted all the same). */
async function overBudget(limiter: RateLimiterAbstract, key: string): Promise<boolean> {
  try {
    await limiter.consume(key);
    return false;
  } catch (res) {
    if (res instanceof RateLimiterRes) return true;
    throw res;
  }
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (res instanceof RateLimiterRes) throw new TooManyRequestsError(Messages.tooManyRequests, Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    throw res;
  }
}

interface Strikes {
  strikes: number;
  /** When the back-off ends (ms since the epoch). */
  until: number;
}

/**
 * Back-off for keys past their refusal budget: refused for 1 s, then 2, 4, 8… each time the key is found past its
 * budget again, up to a ceiling, instead of one long hard block. In this process's memory: it only spares the
 * database the counting of a key already known spent.
 */
export class Backoff {
  private readonly state: LRUCache<string, Strikes>;

  /**
   * `maxSeconds`: the longest back-off. `windowSeconds`: the budgets' window; a key that stays quiet that long
   * past its back-off starts again from 1 s.
   */
  constructor(
    private readonly maxSeconds: number,
    windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.state = new LRUCache({ max: 100_000, ttl: (maxSeconds + windowSeconds) * 1000, ttlAutopurge: false });
  }

  /** Whole seconds until the last of these keys' back-offs ends; 0 when none is backed off. */
  waiting(keys: readonly string[]): number {
    let longest = 0;
    const now = this.now();
    for (const key of keys) {
      const s = this.state.get(key);
      if (s && s.until > now) longest = Math.max(longest, s.until - now);
    }
    return longest === 0 ? 0 : Math.max(1, Math.ceil(longest / 1000));
  }

  /** One more strike against each key; answers the longest back-off they now have, in seconds. */
  strike(keys: readonly string[]): number {
    let longest = 1;
    const now = this.now();
    for (const key of keys) {
      const strikes = (this.state.get(key)?.strikes ?? 0) + 1;
      const seconds = Math.min(this.maxSeconds, 2 ** Math.min(strikes - 1, 30));
      this.state.set(key, { strikes, until: now + seconds * 1000 });
      longest = Math.max(longest, seconds);
    }
    return longest;
  }

  /** The keys were within their budgets again: their strikes are forgotten. */
  forgive(keys: readonly string[]): void {
    for (const key of keys) this.state.delete(key);
  }
}

/**
 * The key an address is counted by: an IPv6 address by its /64 (one subscriber's network, as every ISP assigns
 * them), anything else as it is (IPv4; an IPv4-mapped address is already IPv4, http/client-address.ts).
 */
export function addressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (a zone dropped, a trailing dotted IPv4 read as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
