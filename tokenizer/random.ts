// Random bytes for data keys, salts and nonces, drawn from Node's CSPRNG (OpenSSL) a block at a time: one call per
// 4 KiB instead of one per value. A call costs 3–4 µs whatever its size, and a sealed record of a bulk needs three
// (its key, the key's wrapping nonce, its salt). Every byte is handed out once and zeroed in the block as it goes,
// so nothing drawn stays behind in the process; what the block still holds is bytes no one has seen yet.
import { randomFillSync } from 'node:crypto';

const BLOCK = 4096;
/** Larger draws go straight to the CSPRNG: the block is for the small values that pay the call's fixed cost. */
const LARGEST_POOLED = 64;

const block = Buffer.alloc(BLOCK);
let at = BLOCK;

/** Fills `out[offset, offset + length)` with fresh random bytes. */
export function fillRandom(out: Buffer, offset: number, length: number): void {
  if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > out.length) {
    throw new RangeError(`fillRandom: ${length} bytes at ${offset} do not fit in ${out.length}`);
  }
  if (length > LARGEST_POOLED) {
    randomFillSync(out, offset, length);
    return;
  }
  if (at + length > BLOCK) {
    randomFillSync(block);
    at = 0;
  }
  block.copy(out, offset, at, at + length);
  block.fill(0, at, at + length);
  at += length;
}

/** A new buffer of `length` fresh random bytes (not from Node's shared allocation pool). */
export function randomBuffer(length: number): Buffer {
  const out = Buffer.alloc(length);
  fillRandom(out, 0, length);
  return out;
}
