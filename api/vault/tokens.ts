// Format-preserving tokens: a record becomes a pair (tokenuuid, tokenbase). The tokenizer makes the tokenbase
// with FF1; the api stores the record sealed together with its tokenbase and indexes only HMACs of them.
import { createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { TokenizerClient, TokenFormat } from '../tokenizer-client.js';
import type { TokenStore, TokenRow } from '../store/tokens.js';
import { notFound, Messages } from '../errors.js';
import { expiresAt } from './durations.js';
import { isUuid } from './identities.js';
import type { Expiry } from './users.js';
import type { Scope } from './scope.js';
import type { Database } from '../store/database.js';
import type { SubjectKeys } from './subject-keys.js';
import { Coalescer } from '../coalesce.js';
import { altered } from './sealed.js';
import { prepareValue, TokenFormatError, tokenIndexValue } from '../../proto/token-values.js';

export const TOKEN_TYPES = ['creditcard', 'unixtime', 'email', 'text'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

const FORMAT: Record<Exclude<TokenType, 'text'>, TokenFormat> = { creditcard: 'CREDITCARD', unixtime: 'UNIXTIME', email: 'EMAIL' };
const TOKENS_TABLE = 'tokens';
// A tokenbase collision in a tenant is rare (one in radix^length per pair); a few new attempts always settle it.
const MAX_ATTEMPTS = 8;


/** Items per tokenizer call and per INSERT in a bulk issue: small enough to overlap, large enough to stay cheap. */
const ISSUE_CHUNK = 2_500;

export interface IssuedToken {
  tokenuuid: string;
  tokenbase: string;
  tokentype: TokenType;
  record: string;
}

export interface OpenedToken {
  row: TokenRow;
  record: string;
}

/**
 * The value the tokenizer and the `unique` hash see: a card without spaces and dashes, a time trimmed, an
 * address trimmed and lowercased. Returns a reason (for a 400) instead when the record cannot be a token of that
 * type. The grammar is the tokenizer's own (a pure function, no key involved), so a record the api accepts is
 * never refused at the tokenizer, and a refusal here can name the request's field.
 */
export function normaliseRecord(type: TokenType, record: string): { value: string } | { reason: string } {
  if (type === 'text') return record.length > 0 ? { value: record } : { reason: 'must not be empty' };
  const value = type === 'creditcard' ? record.replace(/[\s-]/g, '') : type === 'email' ? record.trim().toLowerCase() : record.trim();
  try {
    prepareValue(FORMAT[type], value, 0);
  } catch (err) {
    if (err instanceof TokenFormatError) return { reason: err.message };
    throw err;
  }
  return { value };
}

interface Pending {
  /** Position in the request. */
  i: number;
  tokenuuid: string;
  tokenbase: string;
  attempt: number;
  baseHash: Buffer;
  sealed: Buffer;
}

type Item = { tokentype: TokenType; record: string; value: string };

/** One issue call: its items, the answers found so far (by position), and the life every pair it answers gets. */
interface Issuing {
  scope: Scope;
  store: TokenStore;
  items: Item[];
  out: (IssuedToken | undefined)[];
  /** With `unique`, each item's record hash, known once its chunk is made; unused otherwise. */
  unique: boolean;
  recordHashes: Buffer[];
  expiry: Expiry;
  expires: number | null;
}

export class Tokens {
  /**
   * Where a token's attempts start: at random, so the tokens of one value are unrelated to each other and to a
   * deleted one's (the FF1 tweak holds the attempt). From 0 every time, the k-th token of a value always had the same
   * tokenbase (tokens linkable across lists and time) and collided with the k-1 before it, so a value tokenized eight
   * times could not be tokenized again (a 500). Below 2^31: a card's attempts and the retries stay under 2^32.
   */
  firstAttempt(): number {
    return randomInt(0, 2 ** 31);
  }

  // Base hashes of recently seen tokenbases, keyed by a per-process HMAC so the cache holds no token in clear.
  private readonly baseHashes = new LRUCache<string, Buffer>({ max: 200_000 });
  private readonly cacheKey = randomBytes(32);
  // Single plain reads (TokenGet) of concurrent requests share one SELECT per tenant and second.
  private readonly lookups = new Coalescer<string | Buffer, TokenRow[]>((group, keys) => this.lookupMany(group, keys), { maxInFlight: 2 });

  constructor(
    private readonly tokenizer: TokenizerClient,
    private readonly db: Database,
    private readonly keys: SubjectKeys,
  ) {}

  private async lookupMany(group: string, keys: (string | Buffer)[]): Promise<TokenRow[][]> {
    const [tenant, now] = group.split('|').map(Number) as [number, number];
    const uuids = keys.filter((k): k is string => typeof k === 'string');
    const hashes = keys.filter((k): k is Buffer => typeof k !== 'string');
    const rows = await this.db.stores(tenant).tokens.find(uuids, hashes, now);
    const byUuid = new Map(rows.map((r) => [r.tokenuuid, r]));
    const byHash = new Map(rows.map((r) => [r.baseHash.toString('base64'), r]));
    return keys.map((k) => {
      const r = typeof k === 'string' ? byUuid.get(k) : byHash.get(k.toString('base64'));
      return r ? [r] : [];
    });
  }


  /**
   * Issues one pair per item. With `unique`, an item whose record (of that type) already has a live unique pair
   * gets that pair back, with its life restarted; the same record twice in one call gets one pair.
   * One tokenizer call per chunk does the work for its items: record hashes, tokens with their lookup hashes,
   * sealed records. Only a tokenbase collision (rare) costs another call, for the items that collided.
   */
  async issue(scope: Scope, items: Item[], opts: { unique: boolean; expiry: Expiry }): Promise<IssuedToken[]> {
    const store = scope.stores.tokens;
    const out = new Array<IssuedToken | undefined>(items.length);
    const expires = expiresAt(opts.expiry.finaltime, opts.expiry.slidingtime, scope.now);
    const recordHashes = new Array<Buffer>(items.length);
    const run: Issuing = { scope, store, items, out, unique: opts.unique, recordHashes, expiry: opts.expiry, expires };
    // Chunks go to the tokenizer two at a time: the tokenizer works on the next chunk while this one is stored.
    // (All at once, its paced batches would interleave and every chunk would come back at the very end.)
    const chunks: { i: number; tokenuuid: string; attempt: number }[][] = [];
    for (let start = 0; start < items.length; start += ISSUE_CHUNK) {
      chunks.push(Array.from({ length: Math.min(ISSUE_CHUNK, items.length - start) }, (_, k) => ({ i: start + k, tokenuuid: randomUUID(), attempt: this.firstAttempt() })));
    }
    const making: ReturnType<Tokens['make']>[] = [];
    const ask = (c: number) => {
      if (c >= chunks.length || making[c]) return;
      making[c] = this.make(scope.tenantId, items, chunks[c]!, opts.unique);
      // Nothing may be left unobserved if an earlier chunk fails and the loop stops.
      making[c]!.catch(() => undefined);
    };
    ask(0);
    ask(1);

    const first = new Map<string, number>();
    const sameRecordAs = new Map<number, number>();
    for (let c = 0; c < chunks.length; c++) {
      const made = await making[c]!;
      ask(c + 2);
      let pending = made.pending;
      if (opts.unique) {
        for (const [i, h] of made.recordHashes) recordHashes[i] = h;
        const firsts: number[] = [];
        for (const p of pending) {
          const key = recordHashes[p.i]!.toString('base64');
          const j = first.get(key);
          if (j === undefined) {
            first.set(key, p.i);
            firsts.push(p.i);
          } else sameRecordAs.set(p.i, j);
        }
        await store.dropExpiredRecords(firsts.map((i) => recordHashes[i]!), scope.now);
        const left = new Set(await this.reuse(run, firsts));
        pending = pending.filter((p) => left.has(p.i));
      }
      await this.insert(run, pending);
    }
    for (const [i, j] of sameRecordAs) out[i] = { ...out[j]!, record: items[i]!.record };
    return out as IssuedToken[];
  }

  /** Inserts pending pairs; a pair that collides is answered by a concurrent unique pair or retried at the next attempt. */
  private async insert(run: Issuing, pending: Pending[]): Promise<void> {
    const { scope, store, items, out } = run;
    for (let round = 0; pending.length; round++) {
      if (round === MAX_ATTEMPTS) throw new Error('no free tokenbase after several attempts');
      const inserted = await store.insertMany(pending.map((p) => this.rowOf(run, p)));
      const lost: Pending[] = [];
      for (const p of pending) {
        const item = items[p.i]!;
        if (inserted.has(p.tokenuuid)) out[p.i] = { tokenuuid: p.tokenuuid, tokenbase: p.tokenbase, tokentype: item.tokentype, record: item.record };
        else lost.push(p);
      }
      if (!lost.length) return;
      // A concurrent call may have just made the unique pair of a record; otherwise the tokenbase was taken.
      const stillLost = run.unique
        ? new Set(await this.reuse(run, lost.map((p) => p.i)))
        : new Set(lost.map((p) => p.i));
      const retry = lost.filter((p) => stillLost.has(p.i)).map((p) => ({ i: p.i, tokenuuid: randomUUID(), attempt: p.attempt + 1 }));
      pending = (await this.make(scope.tenantId, items, retry, false)).pending;
    }
  }

  /** The tokenizer's part for these items at these attempts, in one call. */
  private async make(
    tenantId: number,
    items: Item[],
    wanted: { i: number; tokenuuid: string; attempt: number }[],
    withRecordHashes: boolean,
  ): Promise<{ pending: Pending[]; recordHashes: [number, Buffer][] }> {
    // Records are sealed under the tenant's own data key (rotations rewrap it; the records stay as they are).
    const key = await this.keys.tenantKey(tenantId);
    const viaFf1 = wanted.filter((w) => items[w.i]!.tokentype !== 'text');
    // A text token's tokenbase is its tokenuuid, hashed like any tokenbase.
    const asText = wanted.filter((w) => items[w.i]!.tokentype === 'text');
    const res = await this.tokenizer.run(tenantId, {
      hash: [
        // Keyed HMACs (the tenant's dedupe key), never plain hashes: equal records are findable only through the tokenizer.
        ...(withRecordHashes ? wanted.map((w) => ({ kind: 'DEDUPE' as const, value: `record\0${items[w.i]!.tokentype}\0${items[w.i]!.value}` })) : []),
        ...asText.map((w) => ({ kind: 'DEDUPE' as const, value: tokenIndexValue(w.tokenuuid) })),
      ],
      tokenize: viaFf1.map((w) => {
        const item = items[w.i]!;
        return { format: FORMAT[item.tokentype as Exclude<TokenType, 'text'>], value: item.value, attempt: w.attempt };
      }),
      seal: wanted.map((w) => ({ table: TOKENS_TABLE, rowId: w.tokenuuid, plaintext: Buffer.from(items[w.i]!.record, 'utf8'), key })),
    });
    const recordHashes: [number, Buffer][] = withRecordHashes ? wanted.map((w, k) => [w.i, res.hash[k]!]) : [];
    const textHashes = res.hash.slice(recordHashes.length);
    const sealedOf = new Map(wanted.map((w, k) => [w.i, res.sealed[k]!]));
    const pending: Pending[] = [
      ...viaFf1.map((w, k) => ({ ...w, tokenbase: res.tokens[k]!.token, attempt: res.tokens[k]!.attempt, baseHash: res.tokens[k]!.index, sealed: sealedOf.get(w.i)! })),
      ...asText.map((w, k) => ({ ...w, tokenbase: w.tokenuuid, baseHash: textHashes[k]!, sealed: sealedOf.get(w.i)! })),
    ];
    return { pending, recordHashes };
  }

  private rowOf({ scope, items, unique, recordHashes, expiry, expires }: Issuing, p: Pending): TokenRow {
    const item = items[p.i]!;
    this.baseHashes.set(this.cacheKeyOf(scope.tenantId, p.tokenbase), p.baseHash);
    return {
      tokenuuid: p.tokenuuid,
      tokenbase: p.tokenbase,
      baseHash: p.baseHash,
      recordHash: unique ? recordHashes[p.i]! : null,
      tokentype: item.tokentype,
      sealed: p.sealed,
      created: scope.now,
      finaltime: expiry.finaltime,
      slidingtime: expiry.slidingtime,
      expiresAt: expires,
    };
  }

  /** Answers items whose record has a live unique pair from it; returns the items still without a pair. */
  private async reuse(run: Issuing, indexes: number[]): Promise<number[]> {
    const { store, recordHashes, items, out, expiry, expires } = run;
    const hits = await store.byRecordHashes(indexes.map((i) => recordHashes[i]!), run.scope.now);
    if (!hits.length) return indexes;
    const byHash = new Map(hits.map((h) => [h.recordHash!.toString('base64'), h]));
    await store.setExpiry(hits.map((h) => h.tokenuuid), expiry.finaltime, expiry.slidingtime, expires);
    const left: number[] = [];
    for (const i of indexes) {
      const hit = byHash.get(recordHashes[i]!.toString('base64'));
      if (hit) out[i] = { tokenuuid: hit.tokenuuid, tokenbase: hit.tokenbase, tokentype: items[i]!.tokentype, record: items[i]!.record };
      else left.push(i);
    }
    return left;
  }

  /**
   * The live rows named by tokenuuids or tokenbases, keyed by the name as given. Unknown and expired names are
   * simply absent.
   */
  async resolve(scope: Scope, names: string[], forUpdate = false): Promise<Map<string, TokenRow>> {
    // A UUID names a tokenuuid (a text token's tokenbase is its tokenuuid); FF1 tokenbases never look like one.
    const uuids = [...new Set(names.filter(isUuid).map((n) => n.toLowerCase()))];
    const bases = [...new Set(names.filter((n) => !isUuid(n)))];
    const baseHashes = await this.baseHashesOf(scope.tenantId, bases);
    const shared = !forUpdate && !scope.stores.sql.inTransaction && uuids.length + bases.length === 1;
    const rows = shared
      ? ((await this.lookups.add(`${scope.tenantId}|${scope.now}`, uuids[0] ?? baseHashes[0]!)) ?? [])
      : await scope.stores.tokens.find(uuids, baseHashes, scope.now, forUpdate);
    const byUuid = new Map(rows.map((r) => [r.tokenuuid, r]));
    const byBase = new Map(rows.map((r) => [r.baseHash.toString('base64'), r]));
    const hashOf = new Map(bases.map((b, k) => [b, baseHashes[k]!.toString('base64')]));
    const found = new Map<string, TokenRow>();
    for (const name of names) {
      const row = isUuid(name) ? byUuid.get(name.toLowerCase()) : byBase.get(hashOf.get(name)!);
      if (row) found.set(name, row);
    }
    return found;
  }

  /** One live token by tokenuuid or tokenbase, or 404 `Token not found`. */
  async find(scope: Scope, name: string, forUpdate = false): Promise<TokenRow> {
    const row = (await this.resolve(scope, [name], forUpdate)).get(name);
    if (!row) throw notFound(Messages.tokenNotFound);
    return row;
  }

  async open(tenantId: number, rows: TokenRow[]): Promise<OpenedToken[]> {
    if (!rows.length) return [];
    const key = await this.keys.tenantKey(tenantId);
    const { opened } = await altered(this.tokenizer.run(tenantId, { open: rows.map((r) => ({ table: TOKENS_TABLE, rowId: r.tokenuuid, ciphertext: r.sealed, key })) }));
    return rows.map((row, k) => ({ row, record: opened[k]!.toString('utf8') }));
  }

  /** A read restarts a sliding window (written at most once a minute per token). */
  async touch(scope: Scope, row: TokenRow): Promise<void> {
    if (!row.slidingtime) return;
    const next = expiresAt(row.finaltime, row.slidingtime, scope.now);
    if (next !== null && (row.expiresAt === null || next - row.expiresAt >= 60)) await scope.stores.tokens.touch(row.tokenuuid, next);
  }

  private async baseHashesOf(tenantId: number, bases: string[]): Promise<Buffer[]> {
    const keys = bases.map((b) => this.cacheKeyOf(tenantId, b));
    const missing = bases.map((b, k) => ({ b, k })).filter(({ k }) => !this.baseHashes.has(keys[k]!));
    if (missing.length) {
      const { hash } = await this.tokenizer.run(tenantId, { hash: missing.map(({ b }) => ({ kind: 'DEDUPE', value: tokenIndexValue(b) })) });
      missing.forEach(({ k }, j) => this.baseHashes.set(keys[k]!, hash[j]!));
    }
    return keys.map((key) => this.baseHashes.get(key)!);
  }

  private cacheKeyOf(tenantId: number, tokenbase: string): string {
    return createHmac('sha256', this.cacheKey).update(`${tenantId}\0${tokenbase}`).digest('base64');
  }
}
