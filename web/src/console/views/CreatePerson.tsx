// Create a person with a small form (the lookup fields, a name, a few more fields), or with raw JSON as the
// advanced path for nested values.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { text, type Answer } from '../../api/client';
import { useVault } from '../session';
import { ErrorMessage, JsonEditor, TextField, jsonIsValid, mustBeObject } from '../../shared/ui';

/** The fields the vault indexes for lookups (unique per tenant), then the name. */
const MAIN = [
  ['name', 'Name', 'text'],
  ['email', 'Email', 'email'],
  ['phone', 'Phone', 'tel'],
  ['login', 'Login', 'text'],
  ['custom', 'Custom index', 'text'],
] as const;

interface Extra {
  key: string;
  value: string;
}

function profileOf(main: Record<string, string>, extras: Extra[]): Record<string, unknown> {
  const profile: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(main)) if (v.trim()) profile[k] = v.trim();
  for (const { key, value } of extras) if (key.trim()) profile[key.trim()] = value;
  return profile;
}

export function CreatePerson({ onCreated }: { onCreated: (token: string) => void }) {
  const vault = useVault();
  const [main, setMain] = useState<Record<string, string>>({});
  const [extras, setExtras] = useState<Extra[]>([]);
  const [json, setJson] = useState<string | null>(null);
  const profile = json === null ? profileOf(main, extras) : null;
  const create = useMutation({
    mutationFn: (): Promise<Answer> => vault.call('UserCreate', { profile: profile ?? (JSON.parse(json!) as Record<string, unknown>) }),
    onSuccess: (answer) => onCreated(text(answer.token)),
  });
  const ready = json === null ? Object.keys(profile!).length > 0 : jsonIsValid(json, mustBeObject);
  const setExtra = (i: number, part: Partial<Extra>) => setExtras(extras.map((e, j) => (j === i ? { ...e, ...part } : e)));
  return (
    <section className="card" aria-labelledby="create-h">
      <h2 id="create-h">Create a person</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        {json === null ? (
          <>
            <div className="row">
              {MAIN.map(([key, label, type]) => (
                <TextField key={key} label={label} type={type} value={main[key] ?? ''} onChange={(v) => setMain({ ...main, [key]: v })} />
              ))}
            </div>
            <p className="muted">Email, phone, login and the custom index are unique lookup keys: the person can be found by each.</p>
            {extras.map((extra, i) => (
              <div className="row" key={i} role="group" aria-label={`More field ${i + 1}`}>
                <TextField label={`Field ${i + 1} name`} value={extra.key} onChange={(key) => setExtra(i, { key })} />
                <TextField label={`Field ${i + 1} value`} value={extra.value} onChange={(value) => setExtra(i, { value })} />
                <button type="button" onClick={() => setExtras(extras.filter((_, j) => j !== i))}>
                  Remove field {i + 1}
                </button>
              </div>
            ))}
            <div className="actions">
              <button type="button" onClick={() => setExtras([...extras, { key: '', value: '' }])}>
                Add a field
              </button>
              <button type="button" onClick={() => setJson(JSON.stringify(profileOf(main, extras), null, 2))}>
                Write JSON instead
              </button>
            </div>
          </>
        ) : (
          <>
            <JsonEditor label="Profile (JSON)" value={json} onChange={setJson} check={mustBeObject} rows={8} />
            <p className="muted">The advanced path: any JSON object, nested values included. login, email, phone and custom become unique lookup keys.</p>
            <div className="actions">
              <button type="button" onClick={() => setJson(null)}>
                Back to the form
              </button>
            </div>
          </>
        )}
        <button type="submit" className="primary" disabled={!ready || create.isPending}>
          Create person
        </button>
      </form>
      <ErrorMessage error={create.error} />
    </section>
  );
}
