// Groups: create, describe, delete; members through the unlock window; add or remove a person.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { useVault } from '../session';
import { UnlockBar, useUnlock } from '../unlock';
import { objectOf, rowsOf, text } from '../../api/client';
import { ConfirmButton, ErrorMessage, QueryState, SelectField, Table, TextField } from '../../shared/ui';
import { MODES, type Mode } from './People';
import { useRoleNames } from './RoleList';

export function Groups() {
  const vault = useVault();
  const client = useQueryClient();
  const key = ['groups', vault.session.tenant];
  const list = useQuery({ queryKey: key, queryFn: () => vault.call('GroupListAllGroups', {}) });
  const [groupname, setGroupname] = useState('');
  const [groupdesc, setGroupdesc] = useState('');
  const members = useParams().groupname ?? null;
  const navigate = useNavigate();
  const setMembers = (g: string) => void navigate(`/groups/${encodeURIComponent(g)}`);
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const create = useMutation({
    mutationFn: () => vault.call('GroupCreate', { groupname: groupname.trim(), groupdesc }),
    onSuccess: async () => {
      setGroupname('');
      setGroupdesc('');
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (g: string) => vault.call('GroupDelete', { groupname: g }), onSuccess: refresh });
  return (
    <>
      <h1>Groups</h1>
      <section className="card" aria-labelledby="groups-h">
        <h2 id="groups-h">Groups</h2>
        <QueryState loading={list.isLoading} error={list.error} what="groups" />
        <Table
          caption="Groups"
          empty="No groups yet."
          rows={rowsOf(list.data)}
          columns={[
            { key: 'groupname', label: 'Name' },
            { key: 'grouptype', label: 'Type' },
            { key: 'groupdesc', label: 'Description' },
            {
              key: 'act',
              label: 'Actions',
              render: (r) => (
                <span className="actions">
                  <button type="button" onClick={() => setMembers(text(r.groupname))}>
                    Members
                  </button>
                  <ConfirmButton subject={`group ${text(r.groupname)}`} label="Delete" confirmLabel="Delete group" onConfirm={() => remove.mutate(text(r.groupname))} />
                </span>
              ),
            },
          ]}
        />
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <TextField label="Group name" value={groupname} onChange={setGroupname} required />
          <TextField label="Description" value={groupdesc} onChange={setGroupdesc} />
          <button type="submit" className="primary" disabled={!groupname.trim()}>
            Create group
          </button>
        </form>
        <ErrorMessage error={create.error ?? remove.error} />
      </section>
      {members ? <Members key={members} groupname={members} /> : null}
    </>
  );
}

function Members({ groupname }: { groupname: string }) {
  const vault = useVault();
  const client = useQueryClient();
  const { uuid } = useUnlock();
  const list = useQuery({ queryKey: ['members', groupname, uuid], queryFn: () => vault.call('BulkListGroupUsers', { unlockuuid: uuid!, groupname, limit: 100 }), enabled: uuid !== null });
  const [mode, setMode] = useState<Mode>('email');
  const [identity, setIdentity] = useState('');
  const roles = useRoleNames();
  const [rolename, setRolename] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: ['members', groupname] });
  const add = useMutation({ mutationFn: () => vault.call('GroupAddUser', { mode, identity: identity.trim(), groupname, ...(rolename.trim() ? { rolename: rolename.trim() } : {}) }), onSuccess: refresh });
  const drop = useMutation({ mutationFn: (token: string) => vault.call('GroupDeleteUser', { mode: 'token', identity: token, groupname }), onSuccess: refresh });
  return (
    <section className="card" aria-labelledby="members-h">
      <h2 id="members-h">Members of {groupname}</h2>
      <UnlockBar what="the member list" />
      <QueryState loading={list.isLoading && uuid !== null} error={list.error} what="members" />
      {list.data ? (
        <Table
          caption="Members"
          empty="No members."
          rows={rowsOf(list.data)}
          columns={[
            { key: 'name', label: 'Name', render: (r) => text(objectOf(r.profile).name) },
            { key: 'email', label: 'Email', render: (r) => text(objectOf(r.profile).email) },
            { key: 'rolename', label: 'Role' },
            { key: 'del', label: 'Actions', render: (r) => <ConfirmButton subject={`${text(objectOf(r.profile).name) || text(objectOf(r.profile).email) || text(r.token)} from ${groupname}`} label="Remove" confirmLabel="Remove from group" onConfirm={() => drop.mutate(text(r.token))} /> },
          ]}
        />
      ) : null}
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <SelectField label="Person by" value={mode} onChange={(v) => setMode(v as Mode)} options={MODES} />
        <TextField label="Value" value={identity} onChange={setIdentity} required />
        <SelectField label="Role in the group (optional)" value={rolename} onChange={setRolename} options={[['', 'no role'], ...roles.map((n) => [n, n] as [string, string])]} />
        <button type="submit" className="primary" disabled={!identity.trim()}>
          Add to group
        </button>
      </form>
      <ErrorMessage error={add.error ?? drop.error} />
    </section>
  );
}
