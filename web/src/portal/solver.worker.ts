// A Web Worker that solves an ALTCHA challenge with altcha-lib's solver (Web Crypto SHA-256 of salt + n), one slice
// of the range at a time so that it can say how far it got.
import { solveChallenge } from 'altcha-lib/v1';
import type { SolverReply, SolverTask } from './challenge';

/** Numbers tried between two progress reports: small enough for a smooth bar, large enough to cost nothing. */
const SLICE = 5_000;

const reply = (message: SolverReply) => self.postMessage(message);

self.onmessage = async (e: MessageEvent<SolverTask>) => {
  const { algorithm, challenge, maxnumber, salt } = e.data;
  for (let start = 0; start <= maxnumber; start += SLICE) {
    const end = Math.min(start + SLICE - 1, maxnumber);
    const found = await solveChallenge(challenge, salt, algorithm, end, start).promise;
    if (found) return reply({ kind: 'solved', number: found.number });
    reply({ kind: 'progress', tried: end + 1 });
  }
  reply({ kind: 'failed' });
};
