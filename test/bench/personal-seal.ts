// The cost of a personal seal, before (0x02: AES-256-GCM under the data key) and after (0x03: a one-time key per
// seal, HMAC-SHA256 of the data key and a random salt; tokenizer/envelope.ts), for a 6 KB profile, in-process.
// `node_modules/.bin/node --import tsx test/bench/personal-seal.ts` prints µs per seal and per open of each.
import { randomBytes } from 'node:crypto';
import { openPersonal, sealPersonal, sealPersonalV2 } from '../../tokenizer/envelope.js';

const PROFILE_BYTES = 6 * 1024;
const MEASURE_MS = 1_500;
const ROUNDS = 3;

const key = randomBytes(32);
const profile = randomBytes(PROFILE_BYTES);
const bind = { tenantId: 7, table: 'users', rowId: '0b5f4c1e-0c8e-4c55-9d4c-7d2f0e8d1a11', subject: '6c3a1e8e-8e4b-4f0a-9a51-3f0d3c6e0b7a' };

/** Microseconds per call of `fn`, the best of ROUNDS windows (the machine is shared: the best is the least disturbed). */
function usPer(fn: () => unknown): number {
  for (let i = 0; i < 20_000; i++) fn();
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0;
    const started = performance.now();
    while (performance.now() - started < MEASURE_MS) {
      for (let i = 0; i < 1000; i++) fn();
      n += 1000;
    }
    best = Math.min(best, ((performance.now() - started) * 1000) / n);
  }
  return best;
}

const v2 = sealPersonalV2(key, bind, profile);
const v3 = sealPersonal(key, bind, profile);
// Interleaved, so that a burst of load from elsewhere hits both formats alike.
const rows = {
  'seal 0x02 (before)': usPer(() => sealPersonalV2(key, bind, profile)),
  'seal 0x03 (after)': usPer(() => sealPersonal(key, bind, profile)),
  'open 0x02 (before)': usPer(() => openPersonal(key, bind, v2)),
  'open 0x03 (after)': usPer(() => openPersonal(key, bind, v3)),
};
for (const [what, us] of Object.entries(rows)) process.stdout.write(`${what.padEnd(20)} ${us.toFixed(2).padStart(7)} µs per ${PROFILE_BYTES}-byte profile\n`);
const extra = rows['seal 0x03 (after)'] - rows['seal 0x02 (before)'];
process.stdout.write(`0x03 adds ${extra.toFixed(2)} µs per seal (${((extra / rows['seal 0x02 (before)']) * 100).toFixed(0)}%)\n`);
