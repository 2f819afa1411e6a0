// The tenant's event subscriptions: listed (never a secret: the vault keeps none to show), paused and resumed, tested,
// a webhook's secret rotated (the new one shown once), deleted after a confirmation; and the form to add one.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { text, type Answer } from '../../api/client';
import { ConfirmButton, CopyButton, ErrorMessage, Notice, QueryState, SelectField, Table, Verdict } from '../../shared/ui';
import { formatTime } from '../../shared/session';
import { useVault } from '../session';
import { subscriptionLabel, subscriptionTarget, subscriptionsKey, useSubscriptions, type ShownSecret } from '../events';
import { SubscriptionForm } from './SubscriptionForm';

/** The signing secret, shown this once, with its copy button and the warning that it will not come back. */
export function SecretNotice({ shown }: { shown: ShownSecret }) {
  return (
    <Notice>
      Signing secret of {shown.label}: <code>{shown.secret}</code> <CopyButton value={shown.secret} what="signing secret" />
      <br />
      <strong>You will not see it again:</strong> copy it now and give it to the receiver, which verifies each delivery with it (Standard Webhooks).
    </Notice>
  );
}

const OVERLAPS: [string, string][] = [
  ['1h', 'one hour'],
  ['1d', 'one day'],
  ['7d', 'one week'],
  ['30d', '30 days'],
];

export function EventSubscriptions() {
  const vault = useVault();
  const client = useQueryClient();
  const { list, rows } = useSubscriptions();
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [tested, setTested] = useState<{ label: string; answer: Answer } | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: subscriptionsKey(vault.session.tenant) });
  const setActive = useMutation({ mutationFn: ({ id, active }: { id: string; active: boolean }) => vault.call('EventSubscriptionUpdate', { subscriptionid: id, active }), onSuccess: refresh });
  const test = useMutation({
    mutationFn: (row: Record<string, unknown>) => vault.call('EventSubscriptionTest', { subscriptionid: text(row.subscriptionid) }),
    onSuccess: (answer, row) => setTested({ label: subscriptionLabel(row), answer }),
  });
  const rotate = useMutation({
    mutationFn: ({ row, overlap }: { row: Record<string, unknown>; overlap: string }) => vault.call('EventSubscriptionUpdate', { subscriptionid: text(row.subscriptionid), rotatesecret: true, overlap }),
    onSuccess: async (answer, { row }) => {
      setSecret({ label: subscriptionLabel(row), secret: text(answer.secret) });
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => vault.call('EventSubscriptionDelete', { subscriptionid: id }), onSuccess: refresh });
  return (
    <>
      <h2>Subscriptions</h2>
      <QueryState loading={list.isLoading} error={list.error} what="subscriptions" />
      {list.data ? (
        <Table
          className="events"
          caption={`Subscriptions (${rows.length})`}
          empty="No subscriptions yet: events go nowhere."
          rows={rows}
          columns={[
            { key: 'description', label: 'Description', render: (r) => text(r.description) || <span className="muted">none</span> },
            { key: 'kind', label: 'Kind', render: (r) => (r.kind === 'nats' ? 'NATS subject' : 'webhook') },
            {
              key: 'target',
              label: 'Target',
              render: (r) => (
                <>
                  <code>{subscriptionTarget(r)}</code> <CopyButton value={text(r.subscriptionid)} what="subscription id" />
                </>
              ),
            },
            { key: 'types', label: 'Event types', render: (r) => (Array.isArray(r.types) ? r.types.map(text).join(', ') : '') },
            { key: 'active', label: 'State', render: (r) => <Verdict value={r.active ? 'active' : 'paused'} /> },
            { key: 'confirm', label: 'Confirms erasures', render: (r) => (r.confirmerasures ? `yes${r.confirmrole ? ` (role ${text(r.confirmrole)})` : ''}` : 'no') },
            {
              key: 'act',
              label: 'Actions',
              render: (r) => (
                <span className="actions">
                  <button type="button" className="small" disabled={setActive.isPending} onClick={() => setActive.mutate({ id: text(r.subscriptionid), active: !r.active })}>
                    {r.active ? 'Pause' : 'Resume'}
                  </button>
                  <button type="button" className="small" disabled={test.isPending} onClick={() => test.mutate(r)}>
                    Send test event
                  </button>
                  {r.kind === 'webhook' ? <RotateButton row={r} disabled={rotate.isPending} onRotate={(overlap) => rotate.mutate({ row: r, overlap })} /> : null}
                  <ConfirmButton subject={`subscription ${subscriptionLabel(r)}`} label="Delete" confirmLabel="Delete the subscription" disabled={remove.isPending} onConfirm={() => remove.mutate(text(r.subscriptionid))}>
                    <p>Its pending deliveries are dropped, and the erasure confirmations it still owed are forgotten. This cannot be undone.</p>
                  </ConfirmButton>
                </span>
              ),
            },
          ]}
        />
      ) : null}
      {test.isPending ? <p role="status">Sending a test event…</p> : null}
      {tested ? <TestResult label={tested.label} answer={tested.answer} /> : null}
      {secret ? <SecretNotice shown={secret} /> : null}
      <ErrorMessage error={setActive.error ?? test.error ?? rotate.error ?? remove.error} />
      <SubscriptionForm onCreated={(shown) => {
          setSecret(shown);
          void refresh();
        }} />
    </>
  );
}

function TestResult({ label, answer }: { label: string; answer: Answer }) {
  const status = answer.httpstatus === undefined ? '' : ` (HTTP ${text(answer.httpstatus)})`;
  if (answer.delivered === true) return <Notice>Test event to {label}: delivered{status}.</Notice>;
  return (
    <p className="error" role="alert">
      Test event to {label}: not delivered{status}. {text(answer.error)}
    </p>
  );
}

/** Rotating asks first, and for how long the previous secret keeps signing beside the new one. */
function RotateButton({ row, disabled, onRotate }: { row: Record<string, unknown>; disabled: boolean; onRotate: (overlap: string) => void }) {
  const [overlap, setOverlap] = useState('1d');
  const previous = Number(row.previoussecretuntil ?? 0);
  return (
    <ConfirmButton subject={`secret of ${subscriptionLabel(row)}`} label="Rotate secret" confirmLabel="Make a new secret" disabled={disabled} onConfirm={() => onRotate(overlap)}>
      <p>A new signing secret is made and shown once. Deliveries carry a signature of each secret for the overlap, so the receiver can switch without missing one.</p>
      {previous > 0 ? <p>An earlier rotation's previous secret signs until {formatTime(previous)}.</p> : null}
      <SelectField label="The previous secret keeps signing for" value={overlap} onChange={setOverlap} options={OVERLAPS} />
    </ConfirmButton>
  );
}
