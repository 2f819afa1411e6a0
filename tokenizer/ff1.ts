// FF1 format-preserving encryption (NIST SP 800-38G Rev. 1) on AES, over the numerals 0-9a-z (radix 2 to 36).
import { createCipheriv, type Cipher } from 'node:crypto';
import { LRUCache } from 'lru-cache';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** The standard allows radix 2^16; values here are strings over ALPHABET, which every format we have fits. */
export const MAX_RADIX = ALPHABET.length;
/** Rev. 1's minimum domain: radix^length must reach a million. */
const MIN_DOMAIN = 1_000_000;
/** The standard allows up to 2^32 - 1 numerals; nothing we tokenize comes near this, and it bounds one item's BigInt work. */
export const MAX_LENGTH = 1024;
/** The standard allows tweaks up to 2^32 - 1 bytes; ours hold a few ids and the kept part of an email address. */
export const MAX_TWEAK = 1024;

const ROUNDS = 10;
const BLOCK = 16;
// Halves below 2^36 let the rounds run on Numbers: reducing the round output 16 bits at a time stays below
// 2^52 (2^36 · 2^16), where reduce() is exact, and NUM(B) takes at most 5 bytes. Cards and Unix times fit.
const NUMBER_LIMIT = 2 ** 36;

const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** The constants of the round function for one radix, length and tweak length (steps 1 to 5 of FF1). */
interface Plan {
  radix: number;
  u: number;
  v: number;
  /** Bytes of NUM(B) in Q, and bytes of the round output kept as y. */
  b: number;
  d: number;
  /** Whether the rounds run on Numbers (radix^v <= NUMBER_LIMIT) or on BigInts. */
  small: boolean;
  /** radix^u and radix^v, Numbers when small. */
  modU: number | bigint;
  modV: number | bigint;
  /** Q = T || 0^pad || [i] || NUM(B): blocks before the one holding [i] depend only on the tweak. */
  tweakBlocks: number;
  roundBlocks: number;
  /** Where [i] sits in the round blocks. */
  roundAt: number;
  /** CIPH_K(P): the CBC-MAC state after P, which every Q continues from. */
  macP: Buffer;
}

function checkRadix(radix: number): void {
  if (!Number.isInteger(radix) || radix < 2 || radix > MAX_RADIX) throw new RangeError(`FF1 radix must be an integer from 2 to ${MAX_RADIX}`);
}

/** Validates one value: numerals of the radix, the minimum domain and the maximum length. Never quotes the value. */
function checkValue(radix: number, value: string, index: number): void {
  const n = value.length;
  if (n > MAX_LENGTH) throw new RangeError(`FF1 value ${index} is longer than ${MAX_LENGTH} numerals`);
  if (radix ** n < MIN_DOMAIN) throw new RangeError(`FF1 value ${index} is too short: radix ${radix} needs radix^length >= ${MIN_DOMAIN}`);
  for (let k = 0; k < n; k++) {
    const c = value.charCodeAt(k);
    if (c >= 128 || DIGIT[c]! < 0 || DIGIT[c]! >= radix) throw new RangeError(`FF1 value ${index} has a character that is not a radix-${radix} numeral`);
  }
}

/**
 * x mod m for 0 <= x < 2^52 and m <= 2^36 without fmod, which is slow. The float quotient may be off by one;
 * q · m stays below 2^53 and so exact, and the off-by-one is corrected.
 */
function reduce(x: number, m: number): number {
  const r = x - Math.floor(x / m) * m;
  return r < 0 ? r + m : r >= m ? r - m : r;
}

/** NUM_radix of value[from, to) as a Number; the caller knows it is below 2^53. */
function numSmall(radix: number, value: string, from: number, to: number): number {
  let x = 0;
  for (let k = from; k < to; k++) x = x * radix + DIGIT[value.charCodeAt(k)]!;
  return x;
}

/** NUM_radix of value[from, to) as a BigInt, a Number-sized chunk at a time. */
function numBig(radix: number, value: string, from: number, to: number): bigint {
  const chunk = Math.floor(52 / Math.log2(radix));
  let x = 0n;
  for (let k = from; k < to; k += chunk) {
    const end = Math.min(to, k + chunk);
    x = x * BigInt(radix ** (end - k)) + BigInt(numSmall(radix, value, k, end));
  }
  return x;
}

export class Ff1 {
  // ECB encrypts each block on its own, so one cipher serves any number of CBC-MAC chains stepped in lockstep.
  private readonly ecb: Cipher;
  // Bounded: email addresses come in many lengths, and each length (with its tweak length) has its own plan.
  private readonly plans = new LRUCache<number, Plan>({ max: 256 });

  constructor(key: Buffer) {
    if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new RangeError('FF1 needs an AES key of 16, 24 or 32 bytes');
    this.ecb = createCipheriv(`aes-${key.length * 8}-ecb`, key, null).setAutoPadding(false);
  }

  encrypt(radix: number, tweak: Buffer, value: string): string {
    return this.encryptAll(radix, [tweak], [value])[0]!;
  }

  decrypt(radix: number, tweak: Buffer, value: string): string {
    return this.decryptAll(radix, [tweak], [value])[0]!;
  }

  /** Encrypts values[k] under tweaks[k]; one AES call per round step serves every value of the same length. */
  encryptAll(radix: number, tweaks: readonly Buffer[], values: readonly string[]): string[] {
    return this.runAll(radix, tweaks, values, true);
  }

  decryptAll(radix: number, tweaks: readonly Buffer[], values: readonly string[]): string[] {
    return this.runAll(radix, tweaks, values, false);
  }

  private runAll(radix: number, tweaks: readonly Buffer[], values: readonly string[], encrypt: boolean): string[] {
    checkRadix(radix);
    if (tweaks.length !== values.length) throw new RangeError('FF1 needs one tweak per value');
    // Values sharing a length and a tweak length share a plan, and so the round structure: they go in lockstep.
    const groups = new Map<number, number[]>();
    for (let k = 0; k < values.length; k++) {
      checkValue(radix, values[k]!, k);
      if (tweaks[k]!.length > MAX_TWEAK) throw new RangeError(`FF1 tweak ${k} is longer than ${MAX_TWEAK} bytes`);
      const key = values[k]!.length * (MAX_TWEAK + 1) + tweaks[k]!.length;
      const group = groups.get(key);
      if (group) group.push(k);
      else groups.set(key, [k]);
    }
    const out = new Array<string>(values.length);
    for (const members of groups.values()) {
      const first = members[0]!;
      const plan = this.plan(radix, values[first]!.length, tweaks[first]!.length);
      const ts = members.map((k) => tweaks[k]!);
      const vs = members.map((k) => values[k]!);
      const results = plan.small ? this.runSmall(plan, ts, vs, encrypt) : this.runBig(plan, ts, vs, encrypt);
      for (let j = 0; j < members.length; j++) out[members[j]!] = results[j]!;
    }
    return out;
  }

  private plan(radix: number, n: number, t: number): Plan {
    const key = (radix * (MAX_LENGTH + 1) + n) * (MAX_TWEAK + 1) + t;
    let plan = this.plans.get(key);
    if (plan) return plan;
    const u = Math.floor(n / 2);
    const v = n - u;
    const modU = BigInt(radix) ** BigInt(u);
    const modV = BigInt(radix) ** BigInt(v);
    // b = ceil(ceil(v · log2 radix) / 8) is the byte length of radix^v - 1, computed exactly.
    const b = Math.ceil((modV - 1n).toString(16).length / 2);
    const d = 4 * Math.ceil(b / 4) + 4;
    const pad = (((-t - b - 1) % BLOCK) + BLOCK) % BLOCK;
    const tweakBlocks = Math.floor((t + pad) / BLOCK);
    const p = Buffer.from([1, 2, 1, (radix >> 16) & 0xff, (radix >> 8) & 0xff, radix & 0xff, 10, u & 0xff, 0, 0, 0, 0, 0, 0, 0, 0]);
    p.writeUInt32BE(n, 8);
    p.writeUInt32BE(t, 12);
    const small = Number(modV) <= NUMBER_LIMIT;
    plan = {
      radix,
      u,
      v,
      b,
      d,
      small,
      modU: small ? Number(modU) : modU,
      modV: small ? Number(modV) : modV,
      tweakBlocks,
      roundBlocks: (t + pad + 1 + b) / BLOCK - tweakBlocks,
      roundAt: t + pad - tweakBlocks * BLOCK,
      macP: this.ecb.update(p),
    };
    this.plans.set(key, plan);
    return plan;
  }

  /**
   * The round blocks of every value's Q with the tweak's bytes in place, and the MAC state each chain
   * reaches after P and its tweak-only blocks: both are the same in all ten rounds, so they are made once.
   */
  private prepare(plan: Plan, tweaks: readonly Buffer[]): { state: Buffer; rounds: Buffer; scratch: Buffer } {
    const count = tweaks.length;
    const span = plan.roundBlocks * BLOCK;
    const rounds = Buffer.alloc(count * span);
    let state = Buffer.allocUnsafe(count * BLOCK);
    const from = plan.tweakBlocks * BLOCK;
    for (let j = 0; j < count; j++) {
      plan.macP.copy(state, j * BLOCK);
      if (tweaks[j]!.length > from) tweaks[j]!.copy(rounds, j * span, from);
    }
    for (let c = 0; c < plan.tweakBlocks; c++) {
      for (let j = 0; j < count; j++) {
        const tweak = tweaks[j]!;
        for (let k = 0; k < BLOCK; k++) state[j * BLOCK + k] = state[j * BLOCK + k]! ^ (tweak[c * BLOCK + k] ?? 0);
      }
      state = this.ecb.update(state);
    }
    return { state, rounds, scratch: Buffer.allocUnsafe(count * BLOCK) };
  }

  /**
   * Steps 6.i to 6.iv for every value at once: R = PRF(P || Q) continued from `state` through the round
   * blocks, then S extended by CIPH(R xor [j]) when d is over 16 bytes. Value j's S starts at j · stride.
   */
  private roundOutput(plan: Plan, state: Buffer, rounds: Buffer, x: Buffer): { s: Buffer; stride: number } {
    const count = x.length / BLOCK;
    const span = plan.roundBlocks * BLOCK;
    let r = state;
    for (let c = 0; c < plan.roundBlocks; c++) {
      for (let j = 0; j < count; j++) {
        const at = j * BLOCK;
        const q = j * span + c * BLOCK;
        for (let k = 0; k < BLOCK; k++) x[at + k] = r[at + k]! ^ rounds[q + k]!;
      }
      r = this.ecb.update(x);
    }
    const extra = Math.ceil(plan.d / BLOCK) - 1;
    if (extra === 0) return { s: r, stride: BLOCK };
    const stride = (extra + 1) * BLOCK;
    const xs = Buffer.allocUnsafe(count * extra * BLOCK);
    for (let j = 0; j < count; j++) {
      for (let e = 0; e < extra; e++) {
        const at = (j * extra + e) * BLOCK;
        r.copy(xs, at, j * BLOCK, (j + 1) * BLOCK);
        // [e + 1]^16 is zero but for its last four bytes.
        xs.writeUInt32BE((xs.readUInt32BE(at + 12) ^ (e + 1)) >>> 0, at + 12);
      }
    }
    const more = this.ecb.update(xs);
    const s = Buffer.allocUnsafe(count * stride);
    for (let j = 0; j < count; j++) {
      r.copy(s, j * stride, j * BLOCK, (j + 1) * BLOCK);
      more.copy(s, j * stride + BLOCK, j * extra * BLOCK, (j + 1) * extra * BLOCK);
    }
    return { s, stride };
  }

  /** The ten rounds on Numbers. Encryption feeds B to the PRF and adds y to A; decryption mirrors it. */
  private runSmall(plan: Plan, tweaks: readonly Buffer[], values: readonly string[], encrypt: boolean): string[] {
    const { radix, u, v, b, d } = plan;
    const count = values.length;
    const span = plan.roundBlocks * BLOCK;
    const { state, rounds, scratch } = this.prepare(plan, tweaks);
    let a = new Float64Array(count);
    let bs = new Float64Array(count);
    for (let j = 0; j < count; j++) {
      a[j] = numSmall(radix, values[j]!, 0, u);
      bs[j] = numSmall(radix, values[j]!, u, u + v);
    }
    for (let step = 0; step < ROUNDS; step++) {
      const i = encrypt ? step : ROUNDS - 1 - step;
      const mod = (i % 2 === 0 ? plan.modU : plan.modV) as number;
      const fed = encrypt ? bs : a;
      const changed = encrypt ? a : bs;
      for (let j = 0; j < count; j++) {
        rounds[j * span + plan.roundAt] = i;
        rounds.writeUIntBE(fed[j]!, (j + 1) * span - b, b);
      }
      const { s, stride } = this.roundOutput(plan, state, rounds, scratch);
      for (let j = 0; j < count; j++) {
        // y mod radix^m: the first 48 bits (d is at least 8 bytes) at once, then 16 bits at a time.
        const at = j * stride;
        let y = reduce(((s[at]! << 8) | s[at + 1]!) * 2 ** 32 + s.readUInt32BE(at + 2), mod);
        for (let k = at + 6; k < at + d; k += 2) y = reduce(y * 65536 + ((s[k]! << 8) | s[k + 1]!), mod);
        let c = encrypt ? changed[j]! + y : changed[j]! - y;
        if (c >= mod) c -= mod;
        else if (c < 0) c += mod;
        changed[j] = c;
      }
      [a, bs] = [bs, a];
    }
    const out = new Array<string>(count);
    for (let j = 0; j < count; j++) out[j] = a[j]!.toString(radix).padStart(u, '0') + bs[j]!.toString(radix).padStart(v, '0');
    return out;
  }

  /** The same rounds on BigInts, for halves past NUMBER_LIMIT. */
  private runBig(plan: Plan, tweaks: readonly Buffer[], values: readonly string[], encrypt: boolean): string[] {
    const { radix, u, v, b, d } = plan;
    const count = values.length;
    const span = plan.roundBlocks * BLOCK;
    const { state, rounds, scratch } = this.prepare(plan, tweaks);
    let a = values.map((value) => numBig(radix, value, 0, u));
    let bs = values.map((value) => numBig(radix, value, u, u + v));
    for (let step = 0; step < ROUNDS; step++) {
      const i = encrypt ? step : ROUNDS - 1 - step;
      const mod = (i % 2 === 0 ? plan.modU : plan.modV) as bigint;
      const fed = encrypt ? bs : a;
      const changed = encrypt ? a : bs;
      for (let j = 0; j < count; j++) {
        rounds[j * span + plan.roundAt] = i;
        rounds.write(fed[j]!.toString(16).padStart(2 * b, '0'), (j + 1) * span - b, 'hex');
      }
      const { s, stride } = this.roundOutput(plan, state, rounds, scratch);
      for (let j = 0; j < count; j++) {
        const y = BigInt(`0x${s.toString('hex', j * stride, j * stride + d)}`);
        // BigInt % keeps the dividend's sign: add mod once more so the result is the standard's non-negative c.
        changed[j] = (((encrypt ? changed[j]! + y : changed[j]! - y) % mod) + mod) % mod;
      }
      [a, bs] = [bs, a];
    }
    return values.map((_, j) => a[j]!.toString(radix).padStart(u, '0') + bs[j]!.toString(radix).padStart(v, '0'));
  }
}
