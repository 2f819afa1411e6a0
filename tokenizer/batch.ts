// One Run batch: validate every item, then hash, seal and open, giving way often enough to honour deadlines.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { seal, open, SealError } from './aead.js';
import { blindIndex, INDEX_KINDS, type IndexKind } from './blind-index.js';
import type { Subkeys } from './subkeys.js';

/** Batch as @grpc/proto-loader hands it over with the shared options (keepCase, enums as strings, defaults). */
export interface BatchRequest {
  tenant_id: number;
  hash: { kind: string | number; value: string }[];
  seal: { table: string; row_id: string; plaintext: Buffer }[];
  open: { table: string; row_id: string; ciphertext: Buffer }[];
}

export interface BatchResult {
  hash: Buffer[];
  sealed: Buffer[];
  opened: Buffer[];
}

/** The caller sent something unusable; the message names the item and never its content. */
export class BadItemError extends Error {
  override name = 'BadItemError';
}

/** The caller went away or its deadline passed: the rest of the batch is not worth computing. */
export class StoppedError extends Error {
  override name = 'StoppedError';
  constructor(readonly why: 'cancelled' | 'deadline') {
    super(why === 'cancelled' ? 'call cancelled' : 'deadline exceeded');
  }
}

export interface RunControl {
  /** Epoch milliseconds; Infinity when the call has none. */
  deadline?: number;
  cancelled?: () => boolean;
}

const MAX_NAME = 256;
// Checked every few small items (or every large one): reading the clock per item would cost more than it saves.
const CHECK_EVERY = 32;
const BYTES_PER_UNIT = 4096;
// Long enough that yielding costs nothing measurable, short enough that health checks and cancellations
// (which arrive on the event loop) are seen within milliseconds even during a 100 MB batch.
const SLICE_MS = 4;

function checkName(list: string, i: number, field: string, value: string): void {
  if (!value) throw new BadItemError(`${list}[${i}].${field} is empty`);
  if (value.length > MAX_NAME) throw new BadItemError(`${list}[${i}].${field} is longer than ${MAX_NAME} characters`);
}

/** Checks the whole batch before any work, so a bad last item costs no crypto and returns no partial result. */
export function validateBatch(req: BatchRequest): void {
  if (!Number.isInteger(req.tenant_id) || req.tenant_id < 1) throw new BadItemError('tenant_id must be 1 or more');
  req.hash.forEach((item, i) => {
    if (!INDEX_KINDS.includes(item.kind as IndexKind)) throw new BadItemError(`hash[${i}].kind is not a known index kind`);
  });
  req.seal.forEach((item, i) => {
    checkName('seal', i, 'table', item.table);
    checkName('seal', i, 'row_id', item.row_id);
  });
  req.open.forEach((item, i) => {
    checkName('open', i, 'table', item.table);
    checkName('open', i, 'row_id', item.row_id);
  });
}

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
    this.budget -= 1 + Math.floor(bytes / BYTES_PER_UNIT);
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

export async function runBatch(keys: Subkeys, activeVersion: number, req: BatchRequest, control: RunControl = {}): Promise<BatchResult> {
  validateBatch(req);
  const pacer = new Pacer(control);
  pacer.stopIfOver();
  const tenant = req.tenant_id;

  const hash = new Array<Buffer>(req.hash.length);
  for (let i = 0; i < req.hash.length; i++) {
    const item = req.hash[i]!;
    hash[i] = blindIndex(keys, tenant, item.kind as IndexKind, item.value);
    const pause = pacer.tick();
    if (pause) await pause;
  }

  const sealed = new Array<Buffer>(req.seal.length);
  for (let i = 0; i < req.seal.length; i++) {
    const item = req.seal[i]!;
    sealed[i] = seal(keys, activeVersion, tenant, item.table, item.row_id, item.plaintext);
    const pause = pacer.tick(item.plaintext.length);
    if (pause) await pause;
  }

  const opened = new Array<Buffer>(req.open.length);
  for (let i = 0; i < req.open.length; i++) {
    const item = req.open[i]!;
    try {
      opened[i] = open(keys, tenant, item.table, item.row_id, item.ciphertext);
    } catch (err) {
      if (err instanceof SealError) throw new BadItemError(`open[${i}]: ${err.message}`);
      throw err;
    }
    const pause = pacer.tick(item.ciphertext.length);
    if (pause) await pause;
  }

  return { hash, sealed, opened };
}
