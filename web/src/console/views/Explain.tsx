// PolicyExplain: why a role would be allowed, refused or partly allowed an operation, optionally on one person.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useVault } from '../session';
import { text } from '../../api/client';
import { ErrorMessage, JsonBlock, SelectField, TextField, Verdict } from '../../shared/ui';
import { MODES, type Mode } from './People';
import { OPERATION_NAMES } from '../../api/requests.gen';
import { useRoleNames } from './RoleList';

export function Explain() {
  const vault = useVault();
  const roles = useRoleNames();
  const [rolename, setRolename] = useState('');
  const [operation, setOperation] = useState('UserGet');
  const [mode, setMode] = useState<Mode>('email');
  const [identity, setIdentity] = useState('');
  const explain = useMutation({
    mutationFn: () => vault.call('PolicyExplain', { rolename: rolename.trim(), operation: operation.trim(), ...(identity.trim() ? { mode, identity: identity.trim() } : {}) }),
  });
  const verdict = text(explain.data?.verdict);
  return (
    <form
      className="card"
      aria-labelledby="explain-h"
      onSubmit={(e) => {
        e.preventDefault();
        explain.mutate();
      }}
    >
      <h2 id="explain-h">Explain a decision</h2>
      <p className="muted">What a role&apos;s policies decide for one operation, and which statements decide it. Naming a person is optional.</p>
      <div className="row">
        <SelectField label="Role" value={rolename} onChange={setRolename} options={[['', roles.length ? 'Choose a role' : 'No roles yet'], ...roles.map((n) => [n, n] as [string, string])]} />
        <SelectField label="Operation" value={operation} onChange={setOperation} options={OPERATION_NAMES} />
        <SelectField label="Person by" value={mode} onChange={(v) => setMode(v as Mode)} options={MODES} />
        <TextField label="Person (optional)" value={identity} onChange={setIdentity} />
      </div>
      <button type="submit" className="primary" disabled={!rolename.trim() || !operation.trim() || explain.isPending}>
        Explain
      </button>
      {explain.data ? (
        <>
          <p role="status">
            Verdict: <Verdict value={verdict} />
            {explain.data.reason ? ` (${text(explain.data.reason)})` : ''}
          </p>
          <JsonBlock value={explain.data} label="The full explanation" />
        </>
      ) : null}
      <ErrorMessage error={explain.error} />
    </form>
  );
}
