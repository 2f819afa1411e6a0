// "Who accessed my data": the person's own audit events (AuditListUserEvents with their login xtoken), each saying
// who (staff by role, an administrator, the person themselves), when and what, in plain words.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { rowsOf, text } from '../api/client';
import { QueryState, Table } from '../shared/ui';
import { formatTime } from '../shared/session';
import { whoForPerson } from '../shared/who';
import { whatWasDone } from '../shared/what';
import { useMe } from './session';

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
    </>
  );
}
