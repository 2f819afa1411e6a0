// Find a person by any mode, create one, or list everyone (through the unlock window); then open their record.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useVault } from '../session';
import { UnlockBar, useUnlock } from '../unlock';
import { rowsOf, text } from '../../api/client';
import { ErrorMessage, Loading, SelectField, Table, TextField, Empty } from '../../shared/ui';
import { CreatePerson } from './CreatePerson';

export const MODES = ['email', 'login', 'phone', 'custom', 'token'] as const;
export type Mode = (typeof MODES)[number];

export function People() {
  const vault = useVault();
  const [mode, setMode] = useState<Mode>('email');
  const [identity, setIdentity] = useState('');
  const navigate = useNavigate();
  const open = (token: string) => void navigate(`/people/${encodeURIComponent(token)}`);
  const find = useMutation({
    mutationFn: () => vault.call('UserGet', { mode, identity: identity.trim() }),
    onSuccess: (answer) => open(text(answer.token)),
  });
  const onFind = (e: FormEvent) => {
    e.preventDefault();
    if (identity.trim()) find.mutate();
  };
  return (
    <>
      <h1>People</h1>
      <section className="card" aria-labelledby="find-h">
        <h2 id="find-h">Find a person</h2>
        <form className="row" onSubmit={onFind}>
          <SelectField label="Find by" value={mode} onChange={(v) => setMode(v as Mode)} options={MODES} />
          <TextField label="Value" value={identity} onChange={setIdentity} required />
          <button type="submit" className="primary" disabled={find.isPending}>
            {find.isPending ? 'Finding…' : 'Find'}
          </button>
        </form>
        <ErrorMessage error={find.error} />
      </section>
      <CreatePerson onCreated={open} />
      <AllPeople onOpen={open} />
    </>
  );
}

function AllPeople({ onOpen }: { onOpen: (token: string) => void }) {
  const vault = useVault();
  const { uuid } = useUnlock();
  const [offset, setOffset] = useState(0);
  const list = useQuery({
    queryKey: ['BulkListAllUsers', vault.session.tenant, uuid, offset],
    queryFn: () => vault.call('BulkListAllUsers', { unlockuuid: uuid!, offset, limit: 20 }),
    enabled: uuid !== null,
  });
  const total = Number(list.data?.total ?? 0);
  return (
    <section className="card" aria-labelledby="all-h">
      <h2 id="all-h">Everyone</h2>
      <UnlockBar what="the list of people" />
      {uuid === null ? null : list.isLoading ? (
        <Loading what="people" />
      ) : (
        <>
          <ErrorMessage error={list.error} />
          <Table
            caption={`People ${offset + 1}–${Math.min(offset + 20, total)} of ${total}`}
            empty="No one is stored in this tenant yet."
            rows={rowsOf(list.data)}
            columns={[
              { key: 'name', label: 'Name', render: (r) => text((r.profile as Record<string, unknown> | undefined)?.name) },
              { key: 'email', label: 'Email', render: (r) => text((r.profile as Record<string, unknown> | undefined)?.email) },
              { key: 'version', label: 'Version' },
              {
                key: 'open',
                label: 'Record',
                render: (r) => (
                  <button type="button" onClick={() => onOpen(text(r.token))}>
                    Open
                  </button>
                ),
              },
            ]}
          />
          {total > 20 ? (
            <div className="actions">
              <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 20))}>
                Previous
              </button>
              <button type="button" disabled={offset + 20 >= total} onClick={() => setOffset(offset + 20)}>
                Next
              </button>
            </div>
          ) : null}
        </>
      )}
      {uuid === null && !list.data ? <Empty>Unlock to list everyone.</Empty> : null}
    </section>
  );
}
