// One Run batch: validate every item, then hash, seal, open, tokenize and detokenize, giving way often enough
// to honour deadlines.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { DataKeyCache } from './data-key-cache.js';
import { seal, open, SealError } from './aead.js';
import { BadItemError, StoppedError } from './batch-errors.js';
import { validateBatch, type PreparedTokens } from './batch-validate.js';
import { openPersonal, sealPersonal } from './envelope.js';
import { newWrappedKey, rewrapAny, unwrapAny, TenantKeyUnavailableError, type KeyWrap } from './tenant-wrap.js';
import type { TenantKekRef } from './tenant-keys.js';
import { blindIndex, type IndexKind } from './blind-index.js';
import { tokenizeAll, detokenizeAll } from './formats.js';
import { tokenIndexValue } from '../proto/token-values.js';
import type { Batch__Output, BatchResult__Output, TokenResult__Output } from '../proto/loader.js';
import type { ChainItem__Output } from '../proto/generated/strongroom/tokenizer/v1/ChainItem.js';
import { canonicalText } from '../proto/audit-checkpoint.js';
import type { ChainLinks__Output } from '../proto/generated/strongroom/tokenizer/v1/ChainLinks.js';
import type { QueueMacItem__Output } from '../proto/generated/strongroom/tokenizer/v1/QueueMacItem.js';
import type { Subkeys } from './subkeys.js';

export { BadItemError, StoppedError, validateBatch, type PreparedTokens };

export interface RunControl {
  /** Epoch milliseconds; Infinity when the call has none. */
  deadline?: number;
  cancelled?: () => boolean;
}

// Checked every few small items (or every large one): reading the clock per item would cost more than it saves.
const CHECK_EVERY = 32;
const BYTES_PER_UNIT = 4096;
// Long enough that yielding costs nothing measurable, short enough that health checks and cancellations
// (which arrive on the event loop) are seen within milliseconds even during a 100 MB batch.
const SLICE_MS = 4;
// Tokens go through FF1 this many at a time, in lockstep: wide enough that one AES call per round step serves
// hundreds of items, small enough (about a millisecond) to keep the pacing checks frequent.
const TOKEN_CHUNK = 512;

/** Cooperative pacing: throws once the call is over, yields to the event loop when a slice is used up. */
class Pacer {
  private sliceStart = performance.now();
  private budget = CHECK_EVERY;

  constructor(private readonly control: RunControl) {}

  stopIfOver(): void {
    // Deadline first: grpc-js also marks a call cancelled when its deadline passes, and that is not the cause.
    if (Date.now() >= (this.control.deadline ?? Infinity)) throw new StoppedError('deadline');
    if (this.control.cancelled?.()) throw new StoppedError('cancelled');
  }

  /** Usually undefined: awaiting per item would cost a microtask each, so the loop awaits only real pauses. */
  tick(bytes = 0): Promise<void> | undefined {
    return this.spend(1 + Math.floor(bytes / BYTES_PER_UNIT));
  }

  /** As tick, after `items` small items done at once. */
  spend(items: number): Promise<void> | undefined {
    this.budget -= items;
    if (this.budget > 0) return undefined;
    this.budget = CHECK_EVERY;
    this.stopIfOver();
    if (performance.now() - this.sliceStart < SLICE_MS) return undefined;
    return yieldToLoop().then(() => {
      this.sliceStart = performance.now();
      this.stopIfOver();
    });
  }
}

/** Counts AES-GCM seals per master key version (tenant record and wrap keys), for the 2^32 limit. */
export type SealCount = (version: number, n: number) => void;

/**
 * The persons' data keys of one batch; keys made in it are zeroed when the batch ends (they are never cached).
 * Unwrapped keys are kept in the service's cache when there is one (tokenizer/data-key-cache.ts).
 */
class DataKeys {
  readonly made = new Map<string, Buffer>();
  /** Unwrapped in this batch with no cache to keep them: zeroed with the made ones. */
  private readonly unwrappedHere: Buffer[] = [];

  constructor(
    private readonly wrap: KeyWrap,
    private readonly salt: string,
    private readonly cache: DataKeyCache | undefined,
  ) {}

  of(list: string, i: number, subject: string, wrapped: Buffer): Buffer {
    if (!wrapped.length) return this.made.get(subject)!;
    const id = `${this.wrap.tenantId}\0${this.salt}\0${subject}\0${wrapped.toString('base64')}`;
    let key = this.cache?.get(id);
    if (!key) {
      try {
        key = unwrapAny(this.wrap, subject, wrapped);
      } catch (err) {
        if (err instanceof SealError) throw new BadItemError(`${list}[${i}]: the wrapped key does not unwrap`);
        throw err;
      }
      if (this.cache) this.cache.set(id, key);
      else this.unwrappedHere.push(key);
    }
    return key;
  }

  zero(): void {
    for (const k of this.made.values()) k.fill(0);
    for (const k of this.unwrappedHere) k.fill(0);
  }
}

/** The keyed links of a run of audit events (tokenizer/audit-chain.ts), for a batch's `chain` items (checked here). */
export type ChainFn = (tenantId: number, salt: Buffer, item: ChainItem__Output) => Omit<ChainLinks__Output, 'details_joined'>;
/** The MACs of a batch's queued audit events, given the details sealed in the batch by uuid (tokenizer/audit-queue.ts). */
export type QueueMacFn = (tenantId: number, salt: Buffer, items: readonly QueueMacItem__Output[], sealed: ReadonlyMap<string, Buffer>) => Buffer[];

/** What a batch needs beyond its keys: seal counting, the audit trail's links and queue MACs, the data-key cache. */
export interface BatchHooks {
  countSeals?: SealCount;
  /** The service's cache of unwrapped data keys; without one, a batch's unwrapped keys are zeroed when it ends. */
  dataKeyCache?: DataKeyCache;
  chain?: ChainFn;
  queueMac?: QueueMacFn;
  /** The tenant key of a tenant with its own KEK (tokenizer/tenant-keys.ts); TenantKeyUnavailableError when it cannot be had. */
  tenantKey?: (ref: TenantKekRef) => Buffer;
}

/** Whether a batch needs a data key of the tenant: every read or write of its records does; hashes and links do not. */
function needsDataKeys(req: Batch__Output): boolean {
  return (
    req.new_key_subjects.length > 0 || req.rewrap_keys.length > 0 || req.tokenize.length > 0 || req.detokenize.length > 0 ||
    req.seal.some((s) => s.subject) || req.open.some((o) => o.subject)
  );
}

/** The tenant key when the batch names the tenant's KEK and needs a data key: the whole batch fails without it. */
function tenantKeyOf(req: Batch__Output, hooks: BatchHooks): Buffer | undefined {
  if (!req.kek_label || !needsDataKeys(req)) return undefined;
  if (!hooks.tenantKey) throw new TenantKeyUnavailableError('this tokenizer holds no tenant keys');
  return hooks.tenantKey({ tenantId: req.tenant_id, salt: req.tenant_salt, label: req.kek_label, wrapped: req.kek_wrapped });
}

/** The table audit events' details are sealed for (api/vault/audit/note.ts). */
const AUDIT_TABLE = 'audit_events';

/** The most events a chain item (or a ChainAudit call) links: the api sends at most 500 when writing, 1,000 when verifying. */
export const MAX_CHAIN = 10_000;

export async function runBatch(
  keys: Subkeys,
  activeVersion: number,
  req: Batch__Output,
  control: RunControl = {},
  hooks: BatchHooks = {},
): Promise<BatchResult__Output> {
  const prepared = validateBatch(req);
  const pacer = new Pacer(control);
  pacer.stopIfOver();
  const tenant = req.tenant_id;
  keys = keys.withSalt(req.tenant_salt);
  const wrap: KeyWrap = { keys, version: activeVersion, tenantId: tenant, tenantKey: tenantKeyOf(req, hooks) };
  const dataKeys = new DataKeys(wrap, req.tenant_salt.toString('hex'), hooks.dataKeyCache);
  try {
    const chain = hooks.chain;
    req.chain.forEach((item, i) => checkChainItem(item, i, chain !== undefined));
    // Runs whose texts are whole are linked first: a trail cut or broken refuses the batch before anything is sealed.
    const early = req.chain.map((item) => (item.details_sealed_as.some(Boolean) ? undefined : { ...chain!(tenant, req.tenant_salt, item), details_joined: false }));
    if (req.queue_mac.length && !hooks.queueMac) throw new BadItemError('this tokenizer makes no queue MACs');
    const done = await runValidated(wrap, req, prepared, { pacer, dataKeys, countSeals: hooks.countSeals ?? (() => {}) });
    const sealedFor = new Map(req.seal.flatMap((s, i) => (s.table === AUDIT_TABLE ? [[s.row_id, done.sealed[i]!] as const] : [])));
    const queue_macs = req.queue_mac.length ? hooks.queueMac!(tenant, req.tenant_salt, req.queue_mac, sealedFor) : [];
    // Those whose details this batch sealed, after it: each such text is an event's head, joined to its details here.
    const chained = req.chain.map((item, i) => early[i] ?? { ...chain!(tenant, req.tenant_salt, withDetails(item, i, sealedFor)), details_joined: true });
    return { ...done, chained, queue_macs };
  } finally {
    dataKeys.zero();
  }
}

/** A chain item's shape, checked before anything in its batch runs. */
function checkChainItem(item: ChainItem__Output, i: number, links: boolean): void {
  const first = Number(item.first_seq);
  if (!links) throw new BadItemError(`chain[${i}]: this tokenizer links no audit events`);
  if (!Number.isSafeInteger(first) || first < 1) throw new BadItemError(`chain[${i}]: first_seq must be 1 or more`);
  // No text at all only to report a committed head.
  const least = Number(item.committed_seq) > 0 ? 0 : 1;
  if (item.canonical.length < least || item.canonical.length > MAX_CHAIN) throw new BadItemError(`chain[${i}]: canonical must hold ${least} to ${MAX_CHAIN} texts`);
  if (item.previous.length !== 0 && item.previous.length !== 32) throw new BadItemError(`chain[${i}]: previous must be empty or 32 bytes`);
  if (item.queue_mac.length > item.canonical.length) throw new BadItemError(`chain[${i}]: more queue_mac than canonical texts`);
  if (item.details_sealed_as.length > item.canonical.length) throw new BadItemError(`chain[${i}]: more details_sealed_as than canonical texts`);
  // A queued event's MAC covers the text as sent: its details come from the queue, never from this batch.
  if (item.details_sealed_as.slice(0, item.queue_mac.length).some(Boolean)) throw new BadItemError(`chain[${i}]: a queued event's details are not sealed in its link's batch`);
}

/** The item with each text that names its details' seal item made whole (its head and the details this batch sealed). */
function withDetails(item: ChainItem__Output, i: number, sealedFor: ReadonlyMap<string, Buffer>): ChainItem__Output {
  const canonical = item.canonical.map((text, k) => {
    const rowId = item.details_sealed_as[k];
    if (!rowId) return text;
    const details = sealedFor.get(rowId);
    if (!details) throw new BadItemError(`chain[${i}]: details_sealed_as[${k}] names no audit_events seal item of this batch`);
    if (!text.endsWith(']')) throw new BadItemError(`chain[${i}]: canonical[${k}] is not an event's head`);
    return canonicalText(text, details);
  });
  return { ...item, canonical };
}

/** What every step of one batch works with. */
interface Step {
  keys: Subkeys;
  wrap: KeyWrap;
  activeVersion: number;
  tenant: number;
  pacer: Pacer;
  dataKeys: DataKeys;
}

async function runValidated(
  wrap: KeyWrap,
  req: Batch__Output,
  prepared: PreparedTokens,
  run: { pacer: Pacer; dataKeys: DataKeys; countSeals: SealCount },
): Promise<Omit<BatchResult__Output, 'chained' | 'queue_macs'>> {
  const { keys, version: activeVersion } = wrap;
  const step: Step = { keys, wrap, activeVersion, tenant: req.tenant_id, pacer: run.pacer, dataKeys: run.dataKeys };
  // In this order: a seal may use a data key made above it, and each step yields to the loop as it goes.
  const wrapped_keys = makeDataKeys(step, req.new_key_subjects);
  const rewrapped_keys = await rewrapKeys(step, req.rewrap_keys);
  const hash = await hashValues(step, req.hash);
  const sealed = await sealItems(step, req.seal);
  const opened = await openItems(step, req.open);
  const tokens = await tokenizeChunks(step, prepared.tokenize);
  const detokenized = await detokenizeChunks(step, prepared.detokenize);

  // Master-version seals (items without a subject, and key wraps) count toward automatic rotation. Items with a
  // subject (a person, or the tenant's own data key under the nil UUID) need no count: each 0x03 seal uses a
  // one-time key derived from a random salt (envelope.ts), so no key ever meets the 2^32 random-nonce bound.
  // Keys wrapped under a tenant key (0x04) use one-time derived keys too.
  const wraps = wrap.tenantKey ? 0 : req.new_key_subjects.length + req.rewrap_keys.length;
  const tenantSeals = req.seal.filter((s) => !s.subject).length + wraps;
  if (tenantSeals) run.countSeals(activeVersion, tenantSeals);
  return { hash, sealed, opened, tokens, detokenized, wrapped_keys, rewrapped_keys };
}

/** A data key per new subject, kept for this batch's seals; the wrapped copies go back to the caller. */
function makeDataKeys({ wrap, dataKeys }: Step, subjects: string[]): Buffer[] {
  return subjects.map((subject) => {
    const made = newWrappedKey(wrap, subject);
    dataKeys.made.set(subject, made.key);
    return made.wrapped;
  });
}

/** Under the active master version, or under the tenant key when the tenant has a KEK (its migration). */
async function rewrapKeys({ wrap, pacer }: Step, items: Batch__Output['rewrap_keys']): Promise<Buffer[]> {
  const out = new Array<Buffer>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    try {
      out[i] = rewrapAny(wrap, item.subject, item.wrapped_key);
    } catch (err) {
      if (err instanceof SealError) throw new BadItemError(`rewrap_keys[${i}]: the wrapped key does not unwrap`);
      throw err;
    }
    const pause = pacer.tick();
    if (pause) await pause;
  }
  return out;
}

async function hashValues({ keys, tenant, pacer }: Step, items: Batch__Output['hash']): Promise<Buffer[]> {
  const out = new Array<Buffer>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    out[i] = blindIndex(keys, tenant, item.kind as IndexKind, item.value);
    const pause = pacer.tick();
    if (pause) await pause;
  }
  return out;
}

/** Items with a subject under that person's data key (format 0x03), the rest under the active master version. */
async function sealItems({ keys, activeVersion, tenant, pacer, dataKeys }: Step, items: Batch__Output['seal']): Promise<Buffer[]> {
  const out = new Array<Buffer>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const place = { tenantId: tenant, table: item.table, rowId: item.row_id };
    out[i] = item.subject
      ? sealPersonal(dataKeys.of('seal', i, item.subject, item.wrapped_key), { ...place, subject: item.subject }, item.plaintext)
      : seal(keys, activeVersion, place, item.plaintext);
    const pause = pacer.tick(item.plaintext.length);
    if (pause) await pause;
  }
  return out;
}

async function openItems({ keys, tenant, pacer, dataKeys }: Step, items: Batch__Output['open']): Promise<Buffer[]> {
  const out = new Array<Buffer>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const place = { tenantId: tenant, table: item.table, rowId: item.row_id };
    try {
      out[i] = item.subject
        ? openPersonal(dataKeys.of('open', i, item.subject, item.wrapped_key), { ...place, subject: item.subject }, item.ciphertext)
        : open(keys, place, item.ciphertext);
    } catch (err) {
      if (err instanceof SealError) throw new BadItemError(`open[${i}]: ${err.message}`);
      throw err;
    }
    const pause = pacer.tick(item.ciphertext.length);
    if (pause) await pause;
  }
  return out;
}

/** Each token with its DEDUPE blind index, TOKEN_CHUNK items through FF1 at a time. */
async function tokenizeChunks({ keys, tenant, pacer }: Step, items: PreparedTokens['tokenize']): Promise<TokenResult__Output[]> {
  const out = new Array<TokenResult__Output>(items.length);
  for (let start = 0; start < out.length; start += TOKEN_CHUNK) {
    const chunk = tokenizeAll(keys, tenant, items.slice(start, start + TOKEN_CHUNK));
    for (let k = 0; k < chunk.length; k++) {
      const t = chunk[k]!;
      out[start + k] = { ...t, index: blindIndex(keys, tenant, 'DEDUPE', tokenIndexValue(t.token)) };
    }
    const pause = pacer.spend(chunk.length);
    if (pause) await pause;
  }
  return out;
}

async function detokenizeChunks({ keys, tenant, pacer }: Step, items: PreparedTokens['detokenize']): Promise<string[]> {
  const out = new Array<string>(items.length);
  for (let start = 0; start < out.length; start += TOKEN_CHUNK) {
    const chunk = detokenizeAll(keys, tenant, items.slice(start, start + TOKEN_CHUNK));
    for (let k = 0; k < chunk.length; k++) out[start + k] = chunk[k]!;
    const pause = pacer.spend(chunk.length);
    if (pause) await pause;
  }
  return out;
}
