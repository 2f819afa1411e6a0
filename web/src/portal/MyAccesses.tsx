// "Who accessed my data": the person's own audit events (AuditListUserEvents with their login xtoken), each saying
// who (staff by role, an administrator, the person themselves), when and what, in plain words; and, beside it, a
// proof of that log (AuditProveEvents) that anyone can check offline against the vault's signed checkpoints.
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { rowsOf, text } from '../api/client';
import { ErrorMessage, Notice, QueryState, Table } from '../shared/ui';
import { download, formatTime } from '../shared/session';
import { whoForPerson } from '../shared/who';
import { whatWasDone } from '../shared/what';
import { useMe, type Me } from './session';

const PAGE = 25;

export function MyAccesses() {
  const { call, me } = useMe();
  const [offset, setOffset] = useState(0);
  const list = useQuery({ queryKey: ['myaccesses', offset], queryFn: () => call('AuditListUserEvents', { ...me, offset, limit: PAGE }) });
  const total = Number(list.data?.total ?? 0);
  return (
    <>
      <h1>Who accessed my data</h1>
      <p>Every time someone read or changed your data in this vault, it was written down. The newest come first.</p>
      <QueryState loading={list.isLoading} error={list.error} what="the log of accesses" />
      {list.data ? (
        <Table
          caption={`Accesses to your data (${total})`}
          empty="Nobody has accessed your data yet."
          rows={rowsOf(list.data)}
          columns={[
            { key: 'when', label: 'When', render: (r) => formatTime(r.when) },
            { key: 'who', label: 'Who', render: (r) => whoForPerson(r.who) },
            { key: 'title', label: 'What', render: (r) => whatWasDone(text(r.title)) },
            { key: 'status', label: 'Outcome', render: (r) => (r.status === 'ok' ? 'done' : 'refused or failed') },
          ]}
        />
      ) : null}
      <div className="actions">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Newer
        </button>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Older
        </button>
      </div>
      <ProofDownload />
    </>
  );
}

/** Pages of AuditProveEvents, one proof of all of them: its segments follow each other by their events. */
async function gatherProof({ call, me }: Me): Promise<Record<string, unknown>> {
  const segments: unknown[] = [];
  const unproven: unknown[] = [];
  let first: Record<string, unknown> | undefined;
  let after = 0;
  for (let page = 0; page < 50; page++) {
    const answer = await call('AuditProveEvents', { ...me, after, limit: 100 });
    const proof = answer.proof as Record<string, unknown>;
    first ??= { ...answer, proof };
    segments.push(...(proof.segments as unknown[]));
    unproven.push(...(answer.unproven as unknown[]));
    if (typeof answer.next !== 'number') break;
    after = answer.next;
  }
  const { proof, publickey } = first as { proof: Record<string, unknown>; publickey: unknown };
  return { proof: { ...proof, segments }, unproven, publickey, made: new Date().toISOString() };
}

export function ProofDownload() {
  const me = useMe();
  const run = useMutation({
    mutationFn: async () => {
      const proof = await gatherProof(me);
      download(new Blob([JSON.stringify(proof, null, 2)], { type: 'application/json' }), 'my-access-log-proof.json');
      return (proof.unproven as unknown[]).length;
    },
  });
  return (
    <section aria-labelledby="proof-title">
      <h2 id="proof-title">Proof of this log</h2>
      <p>
        A file that shows these entries are part of the vault&apos;s tamper-evident audit trail, as it was signed (and, where set up, timestamped by an independent
        authority). Anyone can check it without the vault, with the public key the vault&apos;s operator publishes: <code>npm run audit:verify -- --proof my-access-log-proof.json --public-key audit.pub</code>. It
        holds your entries and, for everyone else&apos;s in between, only a fingerprint that says nothing about them.
      </p>
      <div className="actions">
        <button type="button" disabled={run.isPending} onClick={() => run.mutate()}>
          Download a proof of this log
        </button>
      </div>
      {run.isPending ? <p role="status">Gathering the proof…</p> : null}
      {run.isSuccess ? (
        <Notice>
          Your download has started.
          {run.data ? ` ${run.data} of the newest entries are not signed yet (the vault signs its trail every minute or so): download again later to cover them.` : ''}
        </Notice>
      ) : null}
      <ErrorMessage error={run.error} />
    </section>
  );
}
