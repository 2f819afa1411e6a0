// The user-request inbox: everyone's requests through the unlock window; open one to see the change and decide.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { useVault } from '../session';
import { UnlockBar, useUnlock } from '../unlock';
import { rowsOf, text } from '../../api/client';
import { Empty, QueryState, SelectField, Table } from '../../shared/ui';
import { formatTime } from '../../shared/session';
import { RequestDetail } from './RequestDetail';

const STATUSES = ['open', 'approved', 'canceled', 'all'] as const;

export function Requests() {
  const vault = useVault();
  const { uuid } = useUnlock();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('open');
  const open = useParams().requestuuid ?? null;
  const navigate = useNavigate();
  const setOpen = (uuid: string) => void navigate(`/requests/${encodeURIComponent(uuid)}`);
  const list = useQuery({
    queryKey: ['requests', 'all', vault.session.tenant, uuid, status],
    queryFn: () => vault.call('BulkListAllUserRequests', { unlockuuid: uuid!, status, limit: 50 }),
    enabled: uuid !== null,
  });
  return (
    <>
      <h1>User requests</h1>
      <p>Changes and erasures people asked for through the portal or the API wait here for approval.</p>
      <UnlockBar what="the request inbox" />
      <SelectField label="Show requests" value={status} onChange={(v) => setStatus(v as (typeof STATUSES)[number])} options={STATUSES} />
      {uuid === null && !list.data ? <Empty>Unlock to see the inbox.</Empty> : null}
      <QueryState loading={list.isLoading && uuid !== null} error={list.error} what="requests" />
      {list.data ? (
        <Table
          caption={`Requests (${text(list.data.total)})`}
          empty="No requests with this status."
          rows={rowsOf(list.data)}
          columns={[
            { key: 'requesttype', label: 'Type' },
            { key: 'status', label: 'Status' },
            { key: 'token', label: 'Person (token)' },
            { key: 'creationtime', label: 'Made', render: (r) => formatTime(r.creationtime) },
            { key: 'view', label: 'Details', render: (r) => <button type="button" onClick={() => setOpen(text(r.requestuuid))}>Review</button> },
          ]}
        />
      ) : null}
      {open ? <RequestDetail key={open} requestuuid={open} /> : null}
    </>
  );
}
