// Deliveries of the tenant's events, newest first, by subscription and status, a page at a time: what was delivered,
// what is retried (attempts, last error, next try) and what was given up; and a subscription's events sent again
// from a time, after a confirmation.
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { rowsOf, text } from '../../api/client';
import { ConfirmButton, Copyable, ErrorMessage, Notice, QueryState, SelectField, Table, TextField, Verdict } from '../../shared/ui';
import { formatTime } from '../../shared/session';
import { useVault } from '../session';
import { DELIVERY_STATUSES, subscriptionLabel, useSubscriptions, type DeliveryStatus } from '../events';

const PAGE = 50;

export function EventDeliveries() {
  const vault = useVault();
  const subscriptions = useSubscriptions();
  const labels = new Map(subscriptions.rows.map((r) => [text(r.subscriptionid), subscriptionLabel(r)]));
  const [subscriptionid, setSubscription] = useState('');
  const [status, setStatus] = useState<DeliveryStatus | 'any'>('any');
  const [offset, setOffset] = useState(0);
  const list = useQuery({
    queryKey: ['eventdeliveries', vault.session.tenant, subscriptionid, status, offset],
    queryFn: () => vault.call('EventDeliveryList', { offset, limit: PAGE, ...(subscriptionid ? { subscriptionid } : {}), ...(status === 'any' ? {} : { status }) }),
  });
  const total = Number(list.data?.total ?? 0);
  const choices: [string, string][] = [['', 'all subscriptions'], ...subscriptions.rows.map((r): [string, string] => [text(r.subscriptionid), subscriptionLabel(r)])];
  return (
    <>
      <h2>Deliveries</h2>
      <div className="row">
        <SelectField label="Subscription" value={subscriptionid} onChange={(v) => { setSubscription(v); setOffset(0); }} options={choices} />
        <SelectField label="Status" value={status} onChange={(v) => { setStatus(v as DeliveryStatus | 'any'); setOffset(0); }} options={['any', ...DELIVERY_STATUSES]} />
        <button type="button" onClick={() => void list.refetch()} disabled={list.isFetching}>
          Refresh
        </button>
      </div>
      <QueryState loading={list.isLoading} error={list.error} what="deliveries" />
      {list.data ? (
        <>
          <Table
            className="events"
            caption={total ? `Deliveries ${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : 'Deliveries'}
            empty="No deliveries match."
            rows={rowsOf(list.data)}
            columns={[
              { key: 'type', label: 'Event', render: (r) => <code>{text(r.type)}</code> },
              { key: 'time', label: 'Happened', render: (r) => formatTime(r.time) },
              { key: 'subscriptionid', label: 'Subscription', render: (r) => labels.get(text(r.subscriptionid)) ?? text(r.subscriptionid) },
              { key: 'token', label: 'Person', render: (r) => (r.token ? <Copyable value={text(r.token)} what="record token" /> : <span className="muted">none</span>) },
              { key: 'status', label: 'Status', render: (r) => <Verdict value={text(r.status)} /> },
              { key: 'attempts', label: 'Attempts' },
              { key: 'lasterror', label: 'Last error', render: (r) => [r.httpstatus ? `HTTP ${text(r.httpstatus)}` : '', text(r.lasterror)].filter(Boolean).join(': ') || '—' },
              { key: 'nexttry', label: 'Next try', render: (r) => (r.status === 'pending' ? formatTime(r.nexttry) : '—') },
              { key: 'donetime', label: 'Done', render: (r) => formatTime(r.donetime) },
              { key: 'eventid', label: 'Event id', render: (r) => <Copyable value={text(r.eventid)} what="event id" /> },
            ]}
          />
          <div className="actions">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer
            </button>
            <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </div>
        </>
      ) : null}
      <Replay choices={choices.slice(1)} onReplayed={() => void list.refetch()} />
    </>
  );
}

/** `datetime-local`'s value for a moment: local time, to the minute. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

/** Sends a subscription's events again from a time (in the browser's zone), then from where the vault stopped. */
function Replay({ choices, onReplayed }: { choices: [string, string][]; onReplayed: () => void }) {
  const vault = useVault();
  const [subscriptionid, setSubscription] = useState('');
  const [from, setFrom] = useState(() => localInput(Date.now() - 3_600_000));
  const chosen = subscriptionid || choices[0]?.[0] || '';
  const label = choices.find(([id]) => id === chosen)?.[1] ?? '';
  const fromMs = Date.parse(from);
  const replay = useMutation({
    // An ISO time with its zone: a bare number in the past would be read as a duration.
    mutationFn: (start: { fromtime: string } | { fromsequence: number }) => vault.call('EventReplay', { subscriptionid: chosen, ...start }),
    onSuccess: onReplayed,
  });
  const next = replay.data?.next;
  return (
    <section className="card" aria-labelledby="replay-h">
      <h2 id="replay-h">Send events again</h2>
      <p>Every event this subscription&apos;s filters match, delivered or not, from the time chosen on (while the vault keeps them). Receivers drop the ones they already had by event id.</p>
      <div className="row">
        <SelectField label="Subscription to replay" value={chosen} onChange={setSubscription} options={choices} />
        <TextField label="From (your local time)" type="datetime-local" value={from} onChange={setFrom} />
      </div>
      <ConfirmButton
        subject={`events to ${label} from ${Number.isFinite(fromMs) ? formatTime(fromMs / 1000) : 'that time'}`}
        label="Replay"
        confirmLabel="Send them again"
        disabled={!chosen || !Number.isFinite(fromMs) || replay.isPending}
        onConfirm={() => replay.mutate({ fromtime: new Date(fromMs).toISOString() })}
      >
        <p>The receiver gets these events a second time; one that does not de-duplicate by event id acts on them twice.</p>
      </ConfirmButton>
      {replay.data ? (
        <Notice>
          {text(replay.data.replayed)} events queued again.
          {typeof next === 'number' ? (
            <>
              {' '}More were left.{' '}
              <button type="button" className="small" onClick={() => replay.mutate({ fromsequence: next })}>
                Go on from event {next}
              </button>
            </>
          ) : null}
        </Notice>
      ) : null}
      <ErrorMessage error={replay.error} />
    </section>
  );
}
