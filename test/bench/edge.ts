// The edge's cost on the success path, in one run: UserGet by token at 16 connections through a vault with the
// default rate limits beside a second vault (same database, same build) with them off, interleaved so that drift
// of the machine's speed hits both alike. The body-first authentication itself adds no work to a call that
// succeeds (the same parse runs after the token check instead of before it): what it adds is the blocked-address
// check and the body-size checks, which the first vault does and the second skips only in part, so the ratio is
// an upper bound on the limiter alone and includes nothing else.
import { hammer } from './load.js';
import type { Row } from './stats.js';

export async function measureEdge(limited: string, unlimited: string, root: string, tokens: string[], seconds: number): Promise<Row[]> {
  const headers = { 'x-bunker-token': root };
  const body = (i: number) => ({ mode: 'token', identity: tokens[i % tokens.length] });
  // Both warm, then A B A B: each figure is the mean of its two windows.
  await hammer(limited, headers, 'UserGet', 2, body);
  await hammer(unlimited, headers, 'UserGet', 2, body);
  const on: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < 2; round++) {
    on.push((await hammer(limited, headers, 'UserGet', seconds, body)).rps);
    off.push((await hammer(unlimited, headers, 'UserGet', seconds, body)).rps);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const cost = (1 - mean(on) / mean(off)) * 100;
  return [
    { metric: 'UserGet by token, limits on (16)', value: mean(on), unit: 'req/s' },
    { metric: 'UserGet by token, limits off (16)', value: mean(off), unit: 'req/s' },
    { metric: 'edge checks and rate limiter cost', value: cost, unit: '%', target: { op: '<=', value: 5 } },
  ];
}
