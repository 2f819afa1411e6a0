// Writes about one person under load: AppdataUpdate (a sealed merge, a version kept), AgreementAccept (a sealed
// upsert) and SessionUpsert (a sealed session linked to the person), each at 16 connections over distinct people,
// with their audit events in the same transaction; each beside the write reference's rate from the same run.
import { CONNECTIONS, hammer } from './load.js';
import type { Row } from './stats.js';

type Post = (op: string, body: unknown) => Promise<{ status: number; body: any }>;

/** Measures both over `tokens` (existing people); fails loudly on any error answer. */
export async function measureSubjects(base: string, token: string, post: Post, tokens: string[], seconds: number, writeRef: number): Promise<Row[]> {
  // Every person gets an app record first, so each update merges into one that exists.
  const people = tokens.slice(0, 4000);
  for (let i = 0; i < people.length; i += 64) {
    const answers = await Promise.all(
      people.slice(i, i + 64).map((t) => post('AppdataCreate', { mode: 'token', identity: t, appname: 'bench', appdata: { plan: 'basic', visits: 0 } })),
    );
    const bad = answers.find((a) => a.status !== 200);
    if (bad) throw new Error(`AppdataCreate failed: ${bad.status} ${JSON.stringify(bad.body)}`);
  }
  const basis = await post('LegalBasisCreate', { brief: 'bench-marketing', basistype: 'consent' });
  if (basis.status !== 200) throw new Error(`LegalBasisCreate failed: ${JSON.stringify(basis.body)}`);

  const updates = await hammer(base, { 'x-bunker-token': token }, 'AppdataUpdate', seconds, (i) => ({
    mode: 'token',
    identity: people[i % people.length],
    appname: 'bench',
    appdata: { visits: i, last: `page-${i % 97}` },
  }));
  const accepts = await hammer(base, { 'x-bunker-token': token }, 'AgreementAccept', seconds, (i) => ({
    mode: 'token',
    identity: people[i % people.length],
    brief: 'bench-marketing',
    agreementmethod: 'web-form',
    referencecode: `ref-${i}`,
    finaltime: '1y',
  }));
  const sessions = await hammer(base, { 'x-bunker-token': token }, 'SessionUpsert', seconds, (i) => ({
    sessionuuid: sessionUuid(i % 8000),
    mode: 'token',
    identity: people[i % people.length],
    sessiondata: { page: `page-${i % 97}`, visits: i },
  }));
  if (updates.errors || accepts.errors || sessions.errors) {
    throw new Error(`errors under load: AppdataUpdate ${updates.errors}, AgreementAccept ${accepts.errors}, SessionUpsert ${sessions.errors}`);
  }
  const vsRef = (rps: number) => (rps / writeRef) * 100;
  return [
    { metric: `AppdataUpdate (${CONNECTIONS} conns)`, value: updates.rps, unit: 'req/s' },
    { metric: `AppdataUpdate p50/p99 (${CONNECTIONS})`, value: updates.p50, unit: `ms / ${updates.p99} ms` },
    { metric: `AgreementAccept (${CONNECTIONS} conns)`, value: accepts.rps, unit: 'req/s' },
    { metric: `AgreementAccept p50/p99 (${CONNECTIONS})`, value: accepts.p50, unit: `ms / ${accepts.p99} ms` },
    { metric: `SessionUpsert (${CONNECTIONS} conns)`, value: sessions.rps, unit: 'req/s' },
    { metric: `SessionUpsert p50/p99 (${CONNECTIONS})`, value: sessions.p50, unit: `ms / ${sessions.p99} ms` },
    { metric: 'AppdataUpdate / write ref', value: vsRef(updates.rps), unit: '%' },
    { metric: 'AgreementAccept / write ref', value: vsRef(accepts.rps), unit: '%' },
    { metric: 'SessionUpsert / write ref', value: vsRef(sessions.rps), unit: '%' },
  ];
}

/** A fixed uuid per session number, so the load replaces sessions as well as creating them. */
function sessionUuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}
