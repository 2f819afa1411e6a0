// A person's profile (view, merge-edit, delete) and its versions, compared field by field, with restore.
import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { objectOf, rowsOf, text } from '../../api/client';
import { ConfirmButton, DiffView, Fields, personLabel, ErrorMessage, JsonBlock, JsonEditor, Notice, QueryState, SelectField, Table, jsonIsValid, mustBeObject } from '../../shared/ui';
import { diffJson } from '../../shared/diff';
import { mergePatchBetween } from '../../shared/merge';
import { formatTime } from '../../shared/session';

export function ProfileTab({ token, profile, onDeleted }: { token: string; profile: Record<string, unknown>; onDeleted: () => void }) {
  const vault = useVault();
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(() => JSON.stringify(profile, null, 2));
  const [saved, setSaved] = useState(false);
  const update = useMutation({
    mutationFn: () => vault.call('UserUpdate', { mode: 'token', identity: token, profile: mergePatchBetween(profile, JSON.parse(draft)) as Record<string, unknown> }),
    onSuccess: async () => {
      setEditing(false);
      setSaved(true);
      await client.invalidateQueries({ queryKey: ['person', vault.session.tenant, token] });
      await client.invalidateQueries({ queryKey: ['versions', token] });
    },
  });
  const remove = useMutation({ mutationFn: () => vault.call('UserDelete', { mode: 'token', identity: token }), onSuccess: onDeleted });
  return (
    <section aria-labelledby="profile-h">
      <h2 id="profile-h">Profile</h2>
      {saved ? <Notice>Profile saved.</Notice> : null}
      {editing ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            update.mutate();
          }}
        >
          <JsonEditor label="Profile (JSON; removed fields are deleted)" value={draft} onChange={setDraft} check={mustBeObject} rows={12} />
          <div className="actions">
            <button type="submit" className="primary" disabled={!jsonIsValid(draft, mustBeObject) || update.isPending}>
              Save changes
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
          <ErrorMessage error={update.error} />
        </form>
      ) : (
        <>
          <Fields value={profile} label="Profile" />
          <div className="actions">
            <button
              type="button"
              className="primary"
              onClick={() => {
                setDraft(JSON.stringify(profile, null, 2));
                setSaved(false);
                setEditing(true);
              }}
            >
              Edit profile
            </button>
            <ConfirmButton subject={personLabel(profile)} label="Delete person" confirmLabel="Delete this person for good" onConfirm={() => remove.mutate()}>
              <p>Their record, versions, app data, agreements, sessions, files and shares are erased with their key. This cannot be undone.</p>
            </ConfirmButton>
          </div>
          <ErrorMessage error={remove.error} />
        </>
      )}
    </section>
  );
}

export function VersionsTab({ token, profile }: { token: string; profile: Record<string, unknown> }) {
  const vault = useVault();
  const client = useQueryClient();
  const versions = useQuery({ queryKey: ['versions', token], queryFn: () => vault.call('UserListVersions', { mode: 'token', identity: token }) });
  const rows = rowsOf(versions.data, 'versions');
  const numbers = rows.map((r) => text(r.version));
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  useEffect(() => {
    if (numbers.length && !to) {
      setTo(numbers.at(-1)!);
      setFrom(numbers.at(-2) ?? numbers.at(-1)!);
    }
  }, [numbers, to]);
  const load = (v: string) => ({
    queryKey: ['version', token, v],
    queryFn: () => vault.call('UserGet', { mode: 'token', identity: token, version: Number(v) }),
    enabled: v !== '',
  });
  const a = useQuery(load(from));
  const b = useQuery(load(to));
  const restore = useMutation({
    mutationFn: () => vault.call('UserUpdate', { mode: 'token', identity: token, profile: mergePatchBetween(profile, objectOf(a.data?.profile)) as Record<string, unknown> }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['person', vault.session.tenant, token] });
      await client.invalidateQueries({ queryKey: ['versions', token] });
      setTo('');
    },
  });
  return (
    <section aria-labelledby="versions-h">
      <h2 id="versions-h">Versions</h2>
      <QueryState loading={versions.isLoading} error={versions.error} what="versions" />
      <Table caption="Kept versions" empty="No versions." rows={rows} columns={[{ key: 'version', label: 'Version' }, { key: 'optime', label: 'Saved', render: (r) => formatTime(r.optime) }, { key: 'md5', label: 'MD5' }]} />
      {numbers.length > 0 ? (
        <>
          <div className="row">
            <SelectField label="Compare version" value={from} onChange={setFrom} options={numbers} />
            <SelectField label="with version" value={to} onChange={setTo} options={numbers} />
          </div>
          <QueryState loading={a.isLoading || b.isLoading} error={a.error ?? b.error} what="the versions" />
          {a.data && b.data ? <DiffView caption={`Changes from version ${from} to version ${to}`} changes={diffJson(a.data.profile, b.data.profile)} /> : null}
          {a.data && from !== numbers.at(-1) ? (
            <div className="actions">
              <ConfirmButton label={`Restore version ${from}`} confirmLabel={`Make version ${from} the current profile`} onConfirm={() => restore.mutate()} />
            </div>
          ) : null}
          <ErrorMessage error={restore.error} />
          {a.data ? (
            <details>
              <summary>Version {from} in full</summary>
              <JsonBlock value={a.data.profile} label={`Profile at version ${from}`} />
            </details>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
