// A person's app data, agreements and sessions.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { rowsOf, text } from '../../api/client';
import { ConfirmButton, Empty, ErrorMessage, JsonBlock, JsonEditor, QueryState, SelectField, Table, TextField, jsonIsValid, mustBeObject } from '../../shared/ui';
import { formatTime } from '../../shared/session';

export function AppdataTab({ token }: { token: string }) {
  const vault = useVault();
  const client = useQueryClient();
  const apps = useQuery({ queryKey: ['apps', token], queryFn: () => vault.call('AppdataListUserAppNames', { mode: 'token', identity: token }) });
  const names = Array.isArray(apps.data?.apps) ? (apps.data.apps as unknown[]).map(text) : [];
  const [app, setApp] = useState('');
  const current = app || names[0] || '';
  const data = useQuery({ queryKey: ['appdata', token, current], queryFn: () => vault.call('AppdataGet', { mode: 'token', identity: token, appname: current }), enabled: current !== '' });
  const [newName, setNewName] = useState('');
  const [draft, setDraft] = useState('{}');
  const save = useMutation({
    mutationFn: (appname: string) => vault.call('AppdataCreate', { mode: 'token', identity: token, appname, appdata: JSON.parse(draft) }),
    onSuccess: async (_a, appname) => {
      setApp(appname);
      setNewName('');
      await client.invalidateQueries({ queryKey: ['apps', token] });
      await client.invalidateQueries({ queryKey: ['appdata', token, appname] });
    },
  });
  const remove = useMutation({
    mutationFn: () => vault.call('AppdataDelete', { mode: 'token', identity: token, appname: current }),
    onSuccess: async () => {
      setApp('');
      await client.invalidateQueries({ queryKey: ['apps', token] });
    },
  });
  return (
    <section aria-labelledby="appdata-h">
      <h2 id="appdata-h">App data</h2>
      <QueryState loading={apps.isLoading} error={apps.error} what="app names" />
      {names.length ? (
        <>
          <SelectField label="App" value={current} onChange={setApp} options={names} />
          <QueryState loading={data.isLoading} error={data.error} what="app data" />
          {data.data ? <JsonBlock value={data.data.appdata} label={`Data of ${current}`} /> : null}
          <div className="actions">
            <button type="button" onClick={() => setDraft(JSON.stringify(data.data?.appdata ?? {}, null, 2))}>
              Copy into the editor
            </button>
            <ConfirmButton label={`Delete ${current} data`} confirmLabel="Delete it" onConfirm={() => remove.mutate()} />
          </div>
        </>
      ) : apps.data ? (
        <Empty>No app data for this person.</Empty>
      ) : null}
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(newName.trim() || current);
        }}
      >
        <h3>Store app data</h3>
        <TextField label="App name (empty: the app shown above)" value={newName} onChange={setNewName} />
        <JsonEditor label="Data (JSON object; replaces the app's record, the old one becomes a version)" value={draft} onChange={setDraft} check={mustBeObject} rows={5} />
        <button type="submit" className="primary" disabled={!jsonIsValid(draft, mustBeObject) || !(newName.trim() || current) || save.isPending}>
          Save app data
        </button>
        <ErrorMessage error={save.error ?? remove.error} />
      </form>
    </section>
  );
}

export function AgreementsTab({ token }: { token: string }) {
  const vault = useVault();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['agreements', token], queryFn: () => vault.call('AgreementListUserAgreements', { mode: 'token', identity: token }) });
  const bases = useQuery({ queryKey: ['legalbases', vault.session.tenant], queryFn: () => vault.call('LegalBasisListAgreements', {}) });
  const briefs = rowsOf(bases.data).map((r) => text(r.brief));
  const [brief, setBrief] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: ['agreements', token] });
  const accept = useMutation({ mutationFn: () => vault.call('AgreementAccept', { mode: 'token', identity: token, brief: brief || briefs[0]!, agreementmethod: 'console', status: 'active' }), onSuccess: refresh });
  const cancel = useMutation({ mutationFn: (b: string) => vault.call('AgreementCancel', { mode: 'token', identity: token, brief: b }), onSuccess: refresh });
  return (
    <section aria-labelledby="agreements-h">
      <h2 id="agreements-h">Agreements</h2>
      <QueryState loading={list.isLoading} error={list.error} what="agreements" />
      <Table
        caption="This person's agreements"
        empty="No agreements."
        rows={rowsOf(list.data)}
        columns={[
          { key: 'brief', label: 'Legal basis' },
          { key: 'status', label: 'Status' },
          { key: 'agreementmethod', label: 'Method' },
          { key: 'when', label: 'Changed', render: (r) => formatTime(r.when) },
          {
            key: 'cancel',
            label: 'Action',
            render: (r) =>
              r.status === 'active' ? (
                <button type="button" onClick={() => cancel.mutate(text(r.brief))}>
                  Withdraw
                </button>
              ) : null,
          },
        ]}
      />
      {briefs.length ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            accept.mutate();
          }}
        >
          <SelectField label="Record consent to" value={brief || briefs[0]!} onChange={setBrief} options={briefs} />
          <button type="submit" className="primary">
            Record agreement
          </button>
        </form>
      ) : (
        <Empty>Define a legal basis (Consent) to record agreements.</Empty>
      )}
      <ErrorMessage error={accept.error ?? cancel.error} />
    </section>
  );
}

export function SessionsTab({ token }: { token: string }) {
  const vault = useVault();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['sessions', token], queryFn: () => vault.call('SessionListUserSessions', { mode: 'token', identity: token }) });
  const remove = useMutation({ mutationFn: (uuid: string) => vault.call('SessionDelete', { sessionuuid: uuid }), onSuccess: () => client.invalidateQueries({ queryKey: ['sessions', token] }) });
  return (
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      <QueryState loading={list.isLoading} error={list.error} what="sessions" />
      <Table
        caption="Open sessions"
        empty="No open sessions."
        rows={rowsOf(list.data)}
        columns={[
          { key: 'sessionuuid', label: 'Session' },
          { key: 'sessiondata', label: 'Data' },
          { key: 'expirationtime', label: 'Expires', render: (r) => formatTime(r.expirationtime) },
          { key: 'del', label: 'Action', render: (r) => <ConfirmButton subject={text(r.sessionuuid)} label="End session" confirmLabel="End it" onConfirm={() => remove.mutate(text(r.sessionuuid))} /> },
        ]}
      />
      <ErrorMessage error={remove.error} />
    </section>
  );
}
