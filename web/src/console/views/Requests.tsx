// The user-request inbox: everyone's requests through the unlock window, each with the person it is about and its
// age against the one-month deadline; open one to see the change and decide.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { useVault } from '../session';
import { UnlockBar, useUnlock } from '../unlock';
import { ApiError, objectOf, rowsOf, text } from '../../api/client';
import { Empty, QueryState, SelectField, Table, personLabel } from '../../shared/ui';
import { formatTime } from '../../shared/session';
import { deadlineOf, plural } from '../../shared/deadline';
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
            { key: 'token', label: 'Person', render: (r) => <PersonName token={text(r.token)} /> },
            { key: 'creationtime', label: 'Made', render: (r) => formatTime(r.creationtime) },
            { key: 'deadline', label: 'Answer due', render: (r) => <Due request={r} /> },
            { key: 'view', label: 'Details', render: (r) => <button type="button" onClick={() => setOpen(text(r.requestuuid))}>Review</button> },
          ]}
        />
      ) : null}
      {open ? <RequestDetail key={open} requestuuid={open} /> : null}
    </>
  );
}

/**
 * The person a request is about, read with the same audited UserGet the record view makes (and shares its cache):
 * the admin sees a name where the request names a token.
 */
export function usePerson(token: string) {
  const vault = useVault();
  return useQuery({ queryKey: ['person', vault.session.tenant, token], queryFn: () => vault.call('UserGet', { mode: 'token', identity: token }), enabled: token !== '' });
}

export function PersonName({ token }: { token: string }) {
  const person = usePerson(token);
  if (person.error instanceof ApiError && person.error.httpStatus === 404) return <span className="muted">erased</span>;
  if (!person.data) return <span className="muted">{person.isError ? 'not readable' : '…'}</span>;
  return <Link to={`/people/${encodeURIComponent(token)}`}>{personLabel(objectOf(person.data.profile))}</Link>;
}

/** The request's age and what is left of its month; an answered request shows nothing to chase. */
function Due({ request }: { request: Record<string, unknown> }) {
  const made = Number(request.creationtime);
  if (!made) return null;
  const { age, left, due } = deadlineOf(made);
  if (request.status !== 'open') return <span className="muted">answered</span>;
  const state = left < 0 ? 'overdue' : left < 7 ? 'soon' : 'ok';
  const words = left < 0 ? `overdue by ${plural(-left, 'day')}` : `${plural(left, 'day')} left`;
  return (
    <span>
      <span className={`tag verdict-${state === 'overdue' ? 'bad' : state === 'soon' ? 'warn' : 'good'}`}>{words}</span>{' '}
      <span className="muted">
        {plural(age, 'day')} old, due {due.toLocaleDateString(undefined, { dateStyle: 'medium' })}
      </span>
    </span>
  );
}
