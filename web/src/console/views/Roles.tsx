// Roles: every role listed (RoleList.tsx), create one or open one by name, see its policies and its owner mark, link
// a policy picked from the list of policies, and manage its xtokens. A role another tool manages (its `managedby` mark, e.g. the Kubernetes operator's) is read-only.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { useVault } from '../session';
import { rowsOf, text } from '../../api/client';
import { ConfirmButton, ErrorMessage, Notice, QueryState, SelectField, Table, TextField } from '../../shared/ui';
import { RoleList } from './RoleList';
import { XTokens } from './XTokens';

export function Roles() {
  const vault = useVault();
  const client = useQueryClient();
  const [rolename, setRolename] = useState('');
  const [roledesc, setRoledesc] = useState('');
  const opened = useParams().rolename ?? null;
  const navigate = useNavigate();
  const setOpened = (name: string | null) => void navigate(name === null ? '/access' : `/access/roles/${encodeURIComponent(name)}`);
  const create = useMutation({
    mutationFn: (name: string) => vault.callMain('RoleCreate', { rolename: name, roledesc }),
    onSuccess: async (_a, name) => {
      setRoledesc('');
      setOpened(name);
      await client.invalidateQueries({ queryKey: ['role'] });
    },
  });
  const name = rolename.trim();
  return (
    <section className="card" aria-labelledby="roles-h">
      <h2 id="roles-h">Roles and xtokens</h2>
      <p className="muted">Roles live in the main tenant; their xtokens are made in the tenant chosen above. Open a role from the list, or name one to create it.</p>
      <RoleList />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.reset();
          setOpened(name);
          void client.invalidateQueries({ queryKey: ['role', name] });
        }}
      >
        <div className="row">
          <TextField label="Role name" value={rolename} onChange={setRolename} required />
          <TextField label="Role description" value={roledesc} onChange={setRoledesc} hint="For a new role" />
        </div>
        <div className="actions">
          <button type="submit" disabled={!name}>
            Open role
          </button>
          <button type="button" className="primary" disabled={!name || create.isPending} onClick={() => create.mutate(name)}>
            Create role
          </button>
        </div>
      </form>
      {create.isSuccess ? <Notice>Role {opened} created.</Notice> : null}
      <ErrorMessage error={create.error} />
      {opened ? <RoleDetail key={opened} rolename={opened} onDeleted={() => setOpened(null)} /> : null}
    </section>
  );
}

function RoleDetail({ rolename, onDeleted }: { rolename: string; onDeleted: () => void }) {
  const vault = useVault();
  const client = useQueryClient();
  const role = useQuery({ queryKey: ['role', rolename], queryFn: () => vault.callMain('RoleGet', { rolename }) });
  const policies = useQuery({ queryKey: ['policies'], queryFn: () => vault.call('PolicyListAllPolicies', {}) });
  const [policyname, setPolicyname] = useState('');
  const [roledesc, setRoledesc] = useState<string | null>(null);
  const roleid = Number(role.data?.roleid);
  const refresh = () => client.invalidateQueries({ queryKey: ['role'] });
  const link = useMutation({
    mutationFn: () => vault.callMain('RoleLinkPolicy', { roleid, policyname: policyname.trim() }),
    onSuccess: async () => {
      setPolicyname('');
      await refresh();
    },
  });
  const unlink = useMutation({ mutationFn: (policyid: number) => vault.callMain('RoleUnlinkPolicy', { roleid, policyid }), onSuccess: refresh });
  const describe = useMutation({ mutationFn: (desc: string) => vault.callMain('RoleUpdate', { roleid, roledesc: desc }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => vault.callMain('RoleDelete', { roleid }),
    onSuccess: async () => {
      onDeleted();
      await refresh();
    },
  });
  if (!role.data) return <QueryState loading={role.isLoading} error={role.error} what="the role" />;

  const managedby = text(role.data.managedby);
  const readOnly = managedby !== '';
  const description = roledesc ?? text(role.data.roledesc);
  const linked = new Set(rowsOf(role.data, 'policies').map((p) => text(p.policyname)));
  const linkable = rowsOf(policies.data).map((p) => text(p.policyname)).filter((n) => !linked.has(n));
  return (
    <section className="card" aria-labelledby="role-h">
      <h3 id="role-h">Role {text(role.data.rolename)}</h3>
      <dl className="props">
        <dt>Id</dt>
        <dd>{text(role.data.roleid)}</dd>
        <dt>Description</dt>
        <dd>{text(role.data.roledesc) || '—'}</dd>
        <dt>Managed by</dt>
        <dd>{readOnly ? <code>{managedby}</code> : 'this console or the API (no owner mark)'}</dd>
      </dl>
      {readOnly ? (
        <Notice>
          This role carries an owner mark: another tool manages it (the Kubernetes operator marks what it makes with its Role resource&apos;s uid). It is read-only here; change it
          through that tool.
        </Notice>
      ) : null}
      <Table
        caption={`Policies of role ${text(role.data.rolename)}`}
        empty="No policies linked: the role is allowed nothing."
        rows={rowsOf(role.data, 'policies')}
        columns={[
          { key: 'policyname', label: 'Policy' },
          { key: 'policyid', label: 'Id' },
          ...(readOnly
            ? []
            : [{ key: 'unlink', label: 'Unlink', render: (r: Record<string, unknown>) => <ConfirmButton subject={`policy ${text(r.policyname)} from role ${rolename}`} label="Unlink" confirmLabel="Unlink policy" onConfirm={() => unlink.mutate(Number(r.policyid))} /> }]),
        ]}
      />
      {readOnly ? null : (
        <>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              link.mutate();
            }}
          >
            <SelectField label="Policy to link" value={policyname} onChange={setPolicyname} options={[['', linkable.length ? 'Choose a policy' : 'No other policy to link'], ...linkable.map((n) => [n, n] as [string, string])]} />
            <button type="submit" disabled={!policyname || link.isPending}>
              Link policy
            </button>
          </form>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              describe.mutate(description);
            }}
          >
            <TextField label="New description" value={description} onChange={setRoledesc} />
            <button type="submit" disabled={describe.isPending}>
              Save description
            </button>
          </form>
          <div className="actions">
            <ConfirmButton subject={rolename} label="Delete role" confirmLabel="Delete role and its xtokens" onConfirm={() => remove.mutate()} />
          </div>
        </>
      )}
      <ErrorMessage error={link.error ?? unlink.error ?? describe.error ?? remove.error} />
      <XTokens
        queryKey={['xtokens', 'role', vault.session.tenant, roleid]}
        whose="this role"
        level={4}
        list={() => vault.call('XTokenListForRole', { roleid })}
        create={readOnly ? undefined : (finaltime) => vault.call('XTokenCreateForRole', { roleid, finaltime })}
        readOnlyReason="The tool that manages this role makes and rotates its xtokens."
      />
    </section>
  );
}
