// Files under way: FileCreate and FileGet (JSON and raw) of 1 MiB files, one request at a time on a keep-alive
// connection, in MiB/s of file content. Every upload is new content, so none is answered as a duplicate.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { percentile, type Row } from './stats.js';

const MIB = 1024 * 1024;

function call(agent: Agent, base: string, token: string, op: string, body: unknown): Promise<{ status: number; body: Buffer }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/v2/${op}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': data.length, 'x-bunker-token': token } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** `count` runs of `run(i)` in sequence: MiB/s of `bytes` per request, and latency percentiles. */
async function timed(count: number, bytes: number, run: (i: number) => Promise<void>) {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await run(i);
    times.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  return { mibPerSecond: (count * bytes) / MIB / seconds, p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** Uploads and reads 1 MiB files of existing users (`tokens`); throws on any error answer. */
export async function measureFiles(base: string, token: string, tokens: string[], quick: boolean): Promise<Row[]> {
  const count = quick ? 20 : 100;
  const warmup = 5;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const contents = Array.from({ length: count + warmup }, () => randomBytes(MIB));
    const refs = contents.map((_, i) => ({ mode: 'token', identity: tokens[i % tokens.length]! }));
    const uuids: string[] = [];
    const create = async (i: number) => {
      const res = await call(agent, base, token, 'FileCreate', { ...refs[i]!, filename: `bench-${i}.bin`, filedata: contents[i]!.toString('base64') });
      const body = JSON.parse(res.body.toString()) as { fileuuid?: string; duplicate?: boolean };
      if (res.status !== 200 || body.duplicate !== false) throw new Error(`FileCreate failed: ${res.status} ${res.body.toString().slice(0, 300)}`);
      uuids[i] = body.fileuuid!;
    };
    const get = (raw: boolean) => async (i: number) => {
      const res = await call(agent, base, token, 'FileGet', { ...refs[i]!, fileuuid: uuids[i], raw });
      const size = raw ? res.body.length : Buffer.from((JSON.parse(res.body.toString()) as { filedata: string }).filedata, 'base64').length;
      if (res.status !== 200 || size !== MIB) throw new Error(`FileGet failed: ${res.status} ${res.body.toString().slice(0, 300)}`);
    };
    for (let i = count; i < count + warmup; i++) await create(i);
    for (let i = count; i < count + warmup; i++) await get(false)(i);
    const creates = await timed(count, MIB, create);
    const gets = await timed(count, MIB, get(false));
    const raws = await timed(count, MIB, get(true));
    return [
      { metric: 'FileCreate 1 MiB (1 conn)', value: creates.mibPerSecond, unit: 'MiB/s' },
      { metric: 'FileCreate 1 MiB p50/p99', value: creates.p50, unit: `ms / ${creates.p99.toFixed(1)} ms` },
      { metric: 'FileGet 1 MiB, JSON (1 conn)', value: gets.mibPerSecond, unit: 'MiB/s' },
      { metric: 'FileGet 1 MiB, JSON p50/p99', value: gets.p50, unit: `ms / ${gets.p99.toFixed(1)} ms` },
      { metric: 'FileGet 1 MiB, raw (1 conn)', value: raws.mibPerSecond, unit: 'MiB/s' },
      { metric: 'FileGet 1 MiB, raw p50/p99', value: raws.p50, unit: `ms / ${raws.p99.toFixed(1)} ms` },
    ];
  } finally {
    agent.destroy();
  }
}
