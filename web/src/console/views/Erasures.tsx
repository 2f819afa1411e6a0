// Who confirmed a person's erasure: looked up by the person's token, the request's uuid or the event's id
// (ErasureStatusGet: no personal data asked or answered), each erasure as "N of M recipients confirmed" and each
// recipient confirmed (when, how), pending or overdue. The lookup is in the address: /events/erasures?token=…
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { rowsOf, text } from '../../api/client';
import { Copyable, Empty, QueryState, SelectField, Table, TextField, Verdict } from '../../shared/ui';
import { formatTime } from '../../shared/session';
import { useVault } from '../session';

const KEYS = [
  ['token', 'person token'],
  ['requestuuid', 'request uuid'],
  ['eventid', 'erasure event id'],
] as const;
type Key = (typeof KEYS)[number][0];

const VIA: Record<string, string> = { webhook: 'the webhook answered {"erased": true}', api: 'ErasureConfirm (the recipient)', admin: 'ErasureConfirm (an admin, for the recipient)' };

export function Erasures() {
  const [params, setParams] = useSearchParams();
  const asked = KEYS.map(([k]) => k).find((k) => params.get(k));
  const value = asked ? (params.get(asked) ?? '') : '';
  const [key, setKey] = useState<Key>(asked ?? 'token');
  const [draft, setDraft] = useState(value);
  return (
    <>
      <h2>Erasure confirmations</h2>
      <p>Each recipient that receives erasures owes a confirmation that it erased the person too. Look an erasure up by what you have.</p>
      <form
        className="row"
        role="search"
        aria-label="Look up an erasure"
        onSubmit={(e) => {
          e.preventDefault();
          setParams({ [key]: draft.trim() });
        }}
      >
        <SelectField label="Look up by" value={key} onChange={(v) => setKey(v as Key)} options={KEYS.map(([k, l]) => [k, l] as [string, string])} />
        <TextField label="Value" value={draft} onChange={setDraft} required />
        <button type="submit" className="primary" disabled={!draft.trim()}>
          Look up
        </button>
      </form>
      {asked && value ? <ErasureStatus by={asked} value={value} /> : null}
    </>
  );
}

/** The erasures found by one key, each with its recipients; also used beside a request approved in the inbox. */
export function ErasureStatus({ by, value }: { by: Key; value: string }) {
  const vault = useVault();
  const status = useQuery({ queryKey: ['erasurestatus', vault.session.tenant, by, value], queryFn: () => vault.call('ErasureStatusGet', { [by]: value }) });
  const erasures = rowsOf(status.data, 'erasures');
  return (
    <section aria-label="Erasures found" aria-busy={status.isFetching}>
      <QueryState loading={status.isLoading} error={status.error} what="the erasure's confirmations" />
      {status.data && !erasures.length ? <Empty>No erasure with confirmations owed was found: the person is not erased yet, or no recipient receives erasures.</Empty> : null}
      {erasures.map((e) => (
        <Erasure key={text(e.eventid)} erasure={e} />
      ))}
      {status.data ? (
        <button type="button" onClick={() => void status.refetch()} disabled={status.isFetching}>
          Refresh
        </button>
      ) : null}
    </section>
  );
}

function Erasure({ erasure: e }: { erasure: Record<string, unknown> }) {
  const id = `erasure-${text(e.eventid)}`;
  const confirmed = Number(e.confirmed);
  const total = Number(e.total);
  return (
    <section className="card" aria-labelledby={id}>
      <h3 id={id}>
        {confirmed} of {total} recipients confirmed
      </h3>
      <p className="muted">
        Erased {formatTime(e.erasedtime)}; confirmations due by {formatTime(e.duetime)}. Person <Copyable value={text(e.token)} what="record token" />
        {e.requestuuid ? <> · request <code>{text(e.requestuuid)}</code></> : null} · event <Copyable value={text(e.eventid)} what="event id" />
      </p>
      <Table
        caption={`Recipients of this erasure (${confirmed} of ${total} confirmed)`}
        empty="No recipient owes a confirmation."
        rows={rowsOf(e, 'recipients')}
        columns={[
          { key: 'description', label: 'Recipient', render: (r) => text(r.description) || <code>{text(r.subscriptionid)}</code> },
          { key: 'state', label: 'State', render: (r) => <Verdict value={r.confirmed ? 'confirmed' : r.overdue ? 'overdue' : 'pending'} /> },
          { key: 'confirmedtime', label: 'When', render: (r) => formatTime(r.confirmedtime) },
          { key: 'via', label: 'How', render: (r) => VIA[text(r.via)] ?? '—' },
        ]}
      />
    </section>
  );
}
