// Where the CPU of one call goes, by process: `npm run build && npx tsx test/bench/cpu.ts` starts the compiled vault
// and the reference server on one database with the same 4,000 profiles, loads UserGet by email and UserUpdate at 16
// connections on each (reference, vault, reference, vault), then UserCreateBulk on the vault, and reads from /proc
// the CPU time each process spent during the load: the api, the tokenizer, PostgreSQL's processes, the reference
// server and the load generator. On a machine whose cores are all busy, requests/s is the cores divided by the CPU
// one request costs in all of them, so this says which process to make cheaper; the share each spends in the kernel
// says whether system calls are the cost. BENCH_QUICK=1 uses 3 s windows. `npm run bench` runs it last (`measureCpu`)
// and prints its table with #33's targets: the vault's CPU per call at most 1.25× the reference's (UserGet), 1.7×
// (UserUpdate).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hammer } from './load.js';
import { sideBySide } from './side-by-side.js';
import { cpuDuring } from './cpu-time.js';
import { bulkBodies, measureBulk } from './bulk.js';
import type { Row } from './stats.js';

const PEOPLE = 4000;
/** #33's bounds on the vault's CPU per call, as multiples of the reference's. */
const TARGET = { UserGet: 1.25, UserUpdate: 1.7 };

/**
 * The CPU per call of UserGet and UserUpdate on the vault and the reference, and per UserCreateBulk record: the
 * lines printed as it goes, and the ratios as rows of the bench's table.
 */
export async function measureCpu(seconds: number): Promise<{ lines: string[]; rows: Row[] }> {
  const { vault, reference, root, run, emails, groups, stop } = await sideBySide('cpu', PEOPLE);
  try {
    const bodies = {
      UserGet: (i: number) => ({ mode: 'email', identity: emails[i % emails.length] }),
      UserUpdate: (i: number) => ({ mode: 'email', identity: emails[i % emails.length], profile: { visits: i, last: new Date().toISOString() } }),
    };
    const rows: string[] = [];
    const table: Row[] = [];
    for (const op of ['UserGet', 'UserUpdate'] as const) {
      const perCall: Record<string, number> = {};
      for (const [name, base, headers] of [
        ['reference', reference.url, {}],
        ['vault', vault.url, { 'x-bunker-token': root }],
      ] as const) {
        await hammer(base, headers, op, 2, bodies[op]); // warm-up
        let best: Awaited<ReturnType<typeof cpuDuring>> & { rps: number } = { calls: 0, perCall: {}, sysShare: {}, rps: 0 };
        for (let round = 0; round < 2; round++) {
          let rps = 0;
          const measured = await cpuDuring(groups, async () => {
            const r = await hammer(base, headers, op, seconds, bodies[op]);
            rps = r.rps;
            return r.rps * seconds;
          });
          if (rps > best.rps) best = { ...measured, rps };
        }
        const total = Object.values(best.perCall).reduce((s, v) => s + v, 0);
        perCall[name] = total;
        const parts = Object.entries(best.perCall)
          .filter(([, ms]) => ms > 0.004)
          .map(([g, ms]) => `${g} ${ms.toFixed(3)} (${Math.round(best.sysShare[g]! * 100)}% sys)`)
          .join(', ');
        rows.push(`${op.padEnd(10)} ${name.padEnd(9)} ${Math.round(best.rps).toString().padStart(6)} req/s  CPU ms per call: ${total.toFixed(3)} (${parts})`);
        console.log(rows.at(-1));
      }
      table.push({ metric: `${op} CPU per call, vault / reference`, value: perCall.vault! / perCall.reference!, unit: `× (${perCall.vault!.toFixed(3)} / ${perCall.reference!.toFixed(3)} ms)`, target: { op: '<=', value: TARGET[op] } });
    }
    // UserCreateBulk (the vault alone; the bulk reference is run.ts's raw INSERT): batches of 1,000 new people, made
    // before the load and sent one at a time (a credential may have one large body in flight), CPU per record.
    let made = 0;
    let bulkSeconds = 1;
    const batches = Math.max(4, seconds * 2);
    const bulkRequests = bulkBodies(run, 2_000_000, batches);
    const bulk = await cpuDuring(groups, async () => {
      const started = performance.now();
      made = (await measureBulk(vault.url, [root], bulkRequests)).emails.length;
      bulkSeconds = (performance.now() - started) / 1000;
      return made;
    });
    const parts = Object.entries(bulk.perCall)
      .filter(([, ms]) => ms > 0.0004)
      .map(([g, ms]) => `${g} ${ms.toFixed(4)}`)
      .join(', ');
    rows.push(`UserCreateBulk vault ${Math.round(made / bulkSeconds)} records/s  CPU ms per record: ${Object.values(bulk.perCall).reduce((s, v) => s + v, 0).toFixed(4)} (${parts})`);
    table.push({ metric: 'UserCreateBulk CPU per record', value: Object.values(bulk.perCall).reduce((s, v) => s + v, 0) * 1000, unit: 'µs' });
    return { lines: rows, rows: table };
  } finally {
    await stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { lines } = await measureCpu(process.env.BENCH_QUICK === '1' ? 3 : 10);
  console.log(`\n${lines.join('\n')}`);
}
