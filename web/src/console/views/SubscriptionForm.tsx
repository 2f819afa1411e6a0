// The form that adds a subscription: a webhook URL or a NATS subject, the event types ticked, a description, and
// whether (and through which role) the recipient confirms erasures. A webhook's secret is handed up to be shown once.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { text } from '../../api/client';
import type { EventSubscriptionCreateInput } from '../../api/requests.gen';
import { ErrorMessage, Notice, SelectField, TextField } from '../../shared/ui';
import { useVault } from '../session';
import { EVENT_TYPES, EVENT_WORDS, type EventType, type ShownSecret } from '../events';

type Kind = 'webhook' | 'nats';

export function SubscriptionForm({ onCreated }: { onCreated: (secret: ShownSecret | null) => void }) {
  const vault = useVault();
  const [kind, setKind] = useState<Kind>('webhook');
  const [target, setTarget] = useState('');
  const [types, setTypes] = useState<EventType[]>(['person.erased']);
  const [description, setDescription] = useState('');
  const [confirmerasures, setConfirm] = useState(true);
  const [confirmrole, setRole] = useState('');
  const create = useMutation({
    mutationFn: () => {
      const body: EventSubscriptionCreateInput = {
        ...(kind === 'webhook' ? { url: target.trim() } : { nats: target.trim() }),
        types,
        confirmerasures,
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(confirmerasures && confirmrole.trim() ? { confirmrole: confirmrole.trim() } : {}),
      };
      return vault.call('EventSubscriptionCreate', body);
    },
    onSuccess: (answer) => {
      const label = description.trim() || target.trim();
      onCreated(answer.secret === undefined ? null : { label, secret: text(answer.secret) });
      setTarget('');
      setDescription('');
      setRole('');
    },
  });
  const toggle = (t: EventType, on: boolean) => setTypes(on ? EVENT_TYPES.filter((x) => x === t || types.includes(x)) : types.filter((x) => x !== t));
  return (
    <form
      className="card"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2>New subscription</h2>
      <div className="row">
        <SelectField label="Deliver to" value={kind} onChange={(v) => setKind(v as Kind)} options={[['webhook', 'a webhook (URL)'], ['nats', 'a NATS JetStream subject']]} />
        {kind === 'webhook' ? (
          <TextField label="Webhook URL" value={target} onChange={setTarget} required hint="https://… ; each event is POSTed there, signed with the secret shown after creation." />
        ) : (
          <TextField label="NATS subject" value={target} onChange={setTarget} required hint="Under the vault's prefix and this tenant's id, e.g. strongroom.7.privacy." />
        )}
      </div>
      <fieldset className="choices">
        <legend>Event types</legend>
        {EVENT_TYPES.map((t) => (
          <label key={t} className="choice">
            <input type="checkbox" checked={types.includes(t)} onChange={(e) => toggle(t, e.target.checked)} /> <code>{t}</code> <span className="muted">{EVENT_WORDS[t]}</span>
          </label>
        ))}
      </fieldset>
      <TextField label="Description (optional)" value={description} onChange={setDescription} hint="Who receives these events: it names the recipient in erasure confirmations." />
      <label className="choice">
        <input type="checkbox" checked={confirmerasures} onChange={(e) => setConfirm(e.target.checked)} /> The recipient must confirm each erasure (person.erased)
      </label>
      {confirmerasures ? (
        <TextField
          label="Confirming role (optional)"
          value={confirmrole}
          onChange={setRole}
          hint={'A role whose xtokens may call ErasureConfirm for this subscription. A webhook may also confirm by answering {"erased": true}.'}
        />
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={!target.trim() || !types.length || create.isPending}>
          Create subscription
        </button>
      </div>
      {create.data && create.data.secret === undefined ? <Notice>The subscription was created.</Notice> : null}
      <ErrorMessage error={create.error} />
    </form>
  );
}
