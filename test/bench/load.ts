// One load run: autocannon posting an operation at 16 connections for a number of seconds, a body per request.
import autocannon from 'autocannon';

export const CONNECTIONS = 16;

export async function hammer(base: string, headers: Record<string, string>, op: string, seconds: number, body: (i: number) => unknown, connections = CONNECTIONS) {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: `/v2/${op}`,
        headers: { 'content-type': 'application/json', ...headers },
        setupRequest: (req: any) => ({ ...req, body: JSON.stringify(body(n++)) }),
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors };
}
