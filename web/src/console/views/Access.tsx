// Policies (with a validating JSON editor), roles with their xtokens (Roles.tsx) and PolicyExplain.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { objectOf, rowsOf, text } from '../../api/client';
import { ConfirmButton, ErrorMessage, JsonEditor, Notice, QueryState, Table, TextField, jsonIsValid } from '../../shared/ui';
import { Explain } from './Explain';
import { Roles } from './Roles';

const EXAMPLE = JSON.stringify({ Effect: 'Allow', Principal: { Role: 'support' }, Action: ['UserGet'], Resource: ['users.profile.name', 'users.profile.email'] }, null, 2);

/** A policy is a statement, a list of them, or { Statement: [...] }; each needs Effect and Action. */
export function checkPolicy(value: unknown): string | null {
  const statements = Array.isArray(value) ? value : typeof value === 'object' && value !== null && 'Statement' in value ? (value as { Statement: unknown }).Statement : [value];
  if (!Array.isArray(statements) || statements.length === 0) return 'expected a statement, a list of statements or {"Statement": [...]}';
  for (const [i, s] of statements.entries()) {
    const st = objectOf(s);
    if (st.Effect !== 'Allow' && st.Effect !== 'Deny') return `statement ${i + 1}: Effect must be "Allow" or "Deny"`;
    const action = st.Action;
    if (!(typeof action === 'string' || (Array.isArray(action) && action.length > 0 && action.every((a) => typeof a === 'string')))) return `statement ${i + 1}: Action must be an operation name or a list of them`;
  }
  return null;
}

export function Access() {
  return (
    <>
      <h1>Access</h1>
      <Policies />
      <Roles />
      <Explain />
    </>
  );
}

function Policies() {
  const vault = useVault();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['policies'], queryFn: () => vault.call('PolicyListAllPolicies', {}) });
  const [name, setName] = useState('');
  const [desc, setDesc] = useState('');
  const [source, setSource] = useState(EXAMPLE);
  const [existing, setExisting] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: ['policies'] });
  const load = useMutation({
    mutationFn: (policyname: string) => vault.call('PolicyGet', { policyname }),
    onSuccess: (p) => {
      setName(text(p.policyname));
      setDesc(text(p.policydesc));
      setSource(JSON.stringify(p.policy, null, 2));
      setExisting(true);
    },
  });
  const save = useMutation({
    mutationFn: () => {
      const policy = JSON.parse(source) as unknown;
      return existing ? vault.call('PolicyUpdate', { policyname: name, policydesc: desc, policy: policy as Record<string, unknown> }) : vault.call('PolicyCreate', { policyname: name.trim(), policydesc: desc, policy: policy as Record<string, unknown> });
    },
    onSuccess: async () => {
      setExisting(true);
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (policyname: string) => vault.call('PolicyDelete', { policyname }), onSuccess: refresh });
  return (
    <section className="card" aria-labelledby="pol-h">
      <h2 id="pol-h">Policies</h2>
      <QueryState loading={list.isLoading} error={list.error} what="policies" />
      <Table
        caption="Policies"
        empty="No policies yet."
        rows={rowsOf(list.data)}
        columns={[
          { key: 'policyname', label: 'Name' },
          { key: 'policydesc', label: 'Description' },
          {
            key: 'act',
            label: 'Actions',
            render: (r) => (
              <span className="actions">
                <button type="button" onClick={() => load.mutate(text(r.policyname))}>
                  Edit
                </button>
                <ConfirmButton subject={`policy ${text(r.policyname)}`} label="Delete" confirmLabel="Delete policy" onConfirm={() => remove.mutate(text(r.policyname))} />
              </span>
            ),
          },
        ]}
      />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <h3>{existing ? `Edit policy ${name}` : 'New policy'}</h3>
        <div className="row">
          <TextField label="Policy name" value={name} onChange={(v) => { setName(v); setExisting(false); }} required />
          <TextField label="Description" value={desc} onChange={setDesc} />
        </div>
        <JsonEditor label="Policy document" value={source} onChange={setSource} check={checkPolicy} rows={10} />
        <div className="actions">
          <button type="submit" className="primary" disabled={!name.trim() || !jsonIsValid(source, checkPolicy) || save.isPending}>
            {existing ? 'Save policy' : 'Create policy'}
          </button>
          <button type="button" onClick={() => { setName(''); setDesc(''); setSource(EXAMPLE); setExisting(false); save.reset(); }}>
            New
          </button>
        </div>
        {save.isSuccess ? <Notice>Policy saved.</Notice> : null}
        <ErrorMessage error={save.error ?? load.error ?? remove.error} />
      </form>
    </section>
  );
}
