// FF1 card tokenization inside the tokenizer, in-process: Run's own code (runBatch) without the socket.
// `node_modules/.bin/node --import tsx test/bench/ff1.ts` prints the figures; run.ts reports them with the rest.
import { randomBytes, randomInt } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { Subkeys } from '../../tokenizer/subkeys.js';
import { runBatch } from '../../tokenizer/batch.js';
import { luhnDigit } from '../../proto/token-values.js';
import type { Batch__Output as BatchRequest } from '../../proto/loader.js';

const BATCH = 10_000;
const CARDS = 100_000;
const MEASURE_MS = 2_000;
// Enough calls for V8 to optimise the hot path before the clock starts.
const WARMUP_BATCHES = 5;
const WARMUP_SINGLES = 20_000;

function randomCard(): string {
  const body = `4${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e5)).padStart(5, '0')}`;
  return body + luhnDigit(body);
}

function request(cards: string[]): BatchRequest {
  return { tenant_id: 1, hash: [], seal: [], open: [], detokenize: [], new_key_subjects: [], rewrap_keys: [],
    chain: [], queue_mac: [], tenant_salt: Buffer.alloc(0), kek_label: '', kek_wrapped: Buffer.alloc(0), tokenize: cards.map((value) => ({ format: 'CREDITCARD', value, attempt: 0 })) };
}

/** Calls `run` until MEASURE_MS have passed; items per second. */
async function rate(run: (call: number) => Promise<number>): Promise<number> {
  let items = 0;
  const started = performance.now();
  for (let call = 0; performance.now() - started < MEASURE_MS; call++) items += await run(call);
  return items / ((performance.now() - started) / 1000);
}

/** 16-digit card tokenizations per second: in Run batches of 10,000, and one card per Run. */
export async function measureFf1(): Promise<{ opsPerSecond: number; singleOpsPerSecond: number }> {
  const master = randomBytes(32);
  const keys = new Subkeys({ key: (version) => (version === 1 ? master : undefined) });
  const cards = Array.from({ length: CARDS }, randomCard);
  const batches = Array.from({ length: CARDS / BATCH }, (_, b) => request(cards.slice(b * BATCH, (b + 1) * BATCH)));
  const singles = cards.map((card) => request([card]));

  for (let b = 0; b < WARMUP_BATCHES; b++) await runBatch(keys, 1, batches[b % batches.length]!);
  const opsPerSecond = await rate(async (call) => (await runBatch(keys, 1, batches[call % batches.length]!)).tokens.length);
  for (let s = 0; s < WARMUP_SINGLES; s++) await runBatch(keys, 1, singles[s % singles.length]!);
  const singleOpsPerSecond = await rate(async (call) => (await runBatch(keys, 1, singles[call % singles.length]!)).tokens.length);
  return { opsPerSecond, singleOpsPerSecond };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { opsPerSecond, singleOpsPerSecond } = await measureFf1();
  console.log(`FF1 card tokenizations in the tokenizer: ${Math.round(opsPerSecond)}/s in batches of ${BATCH}, ${Math.round(singleOpsPerSecond)}/s one per Run`);
}
