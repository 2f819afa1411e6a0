// What each layer of a read costs in CPU, by process: `npm run build && npx tsx test/bench/layers.ts` starts the
// compiled vault and the reference server on one database with the same 2,000 profiles and loads, at 16 connections
// for BENCH_SECONDS (4) each after a warm-up of the same length: GET /healthz (the HTTP stack and the outer
// middleware alone), UserGet of people who do not exist (a v2 call: the credential, the body, the checks, the
// lookup and the audit event of a failed call, no profile), UserGet by email, and the reference's UserGet. Each line
// gives req/s and the CPU ms per call of the api, the tokenizer, PostgreSQL, the reference server and the load
// generator (/proc, cpu-time.ts), with the tokenizer calls and audit batches per call from the api's metrics.
// Read the lines against each other: what a layer adds is its line minus the one before. `BENCH_ONLY=UserGet` runs
// the lines whose name holds that text.
import autocannon from 'autocannon';
import { hammer } from './load.js';
import { sideBySide } from './side-by-side.js';
import { cpuDuring } from './cpu-time.js';

const PEOPLE = 2000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);

const { vault, reference, root, emails, groups, stop } = await sideBySide('layers', PEOPLE);
try {
  const get = async (base: string, path: string) => (await autocannon({ url: `${base}${path}`, connections: 16, duration: SECONDS })).requests.average;
  const userGet = async (base: string, headers: Record<string, string>, identity: (i: number) => string) =>
    (await hammer(base, headers, 'UserGet', SECONDS, (i) => ({ mode: 'email', identity: identity(i) }))).rps;
  const lines: [string, () => Promise<number>][] = [
    ['vault: GET /healthz', () => get(vault.url, '/healthz')],
    ['vault: UserGet of nobody (404)', () => userGet(vault.url, { 'x-bunker-token': root }, (i) => `nobody${i % 50}@example.com`)],
    ['vault: UserGet by email', () => userGet(vault.url, { 'x-bunker-token': root }, (i) => emails[i % PEOPLE]!)],
    ['reference: UserGet by email', () => userGet(reference.url, {}, (i) => emails[i % PEOPLE]!)],
  ];

  /** The api's counts of tokenizer calls and of audit batches (and their events) so far. */
  const counts = async () => {
    const text = await (await fetch(`${vault.url}/metrics`)).text();
    const sum = (re: RegExp) => text.split('\n').filter((l) => re.test(l)).reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
    return {
      tokenizer: sum(/^strongroom_api_tokenizer_call_duration_seconds_count/),
      batches: sum(/^strongroom_api_audit_batch_events_count/),
      events: sum(/^strongroom_api_audit_batch_events_sum/),
    };
  };

  for (const [name, load] of lines.filter(([n]) => !process.env.BENCH_ONLY || n.includes(process.env.BENCH_ONLY))) {
    await load(); // warm-up
    const before = await counts();
    let rps = 0;
    const { perCall } = await cpuDuring(groups, async () => {
      rps = await load();
      return Math.max(1, rps * SECONDS);
    });
    const after = await counts();
    const calls = Math.max(1, rps * SECONDS);
    const total = Object.values(perCall).reduce((a, b) => a + b, 0);
    const parts = Object.entries(perCall)
      .filter(([, ms]) => ms > 0.003)
      .map(([g, ms]) => `${g} ${ms.toFixed(3)}`)
      .join(', ');
    const batches = after.batches - before.batches;
    const perCallCounts = name.startsWith('vault: UserGet')
      ? `; per call: ${((after.tokenizer - before.tokenizer) / calls).toFixed(3)} tokenizer calls, ${(batches / calls).toFixed(3)} audit batches of ${((after.events - before.events) / Math.max(1, batches)).toFixed(1)} events`
      : '';
    console.log(`${name.padEnd(32)} ${Math.round(rps).toString().padStart(6)} req/s, CPU ms per call ${total.toFixed(3)} (${parts})${perCallCounts}`);
  }
} finally {
  await stop();
}
