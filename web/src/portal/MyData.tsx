// The person's own profile (and a change request or erasure), app data and sessions, as labelled fields.
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { objectOf, rowsOf, text } from '../api/client';
import { ConfirmButton, Empty, ErrorMessage, Fields, JsonEditor, Notice, QueryState, Table, ValueView, jsonIsValid, mustBeObject } from '../shared/ui';
import { mergePatchBetween } from '../shared/merge';
import { formatDate, formatTime } from '../shared/session';
import { useMe } from './session';
import { keepReceipt } from './receipt';

export function MyProfile() {
  const { call, me } = useMe();
  const client = useQueryClient();
  const profile = useQuery({ queryKey: ['me'], queryFn: () => call('UserGet', me) });
  const current = objectOf(profile.data?.profile);
  const [draft, setDraft] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: () => call('UserUpdateRequest', { ...me, profile: mergePatchBetween(current, JSON.parse(draft!)) as Record<string, unknown> }),
    onSuccess: async () => {
      setDraft(null);
      await client.invalidateQueries({ queryKey: ['myrequests'] });
    },
  });
  const erase = useMutation({
    mutationFn: () => call('UserDeleteRequest', me),
    onSuccess: (answer) => {
      keepReceipt(me.identity, text(answer.requestuuid));
      return client.invalidateQueries({ queryKey: ['myrequests'] });
    },
  });
  const requests = useQuery({ queryKey: ['myrequests'], queryFn: () => call('UserRequestListUserRequests', me) });
  // An open erasure request, asked now or in an earlier visit, replaces the button with its date.
  const asked = rowsOf(requests.data).find((r) => r.requesttype === 'forget-me' && r.status === 'open');
  // Asked in another browser, or before receipts were kept: this browser keeps one now.
  const askedUuid = asked ? text(asked.requestuuid) : '';
  useEffect(() => {
    if (askedUuid) keepReceipt(me.identity, askedUuid);
  }, [askedUuid, me.identity]);
  return (
    <>
      <h1>My profile</h1>
      <QueryState loading={profile.isLoading} error={profile.error} what="your profile" />
      {profile.data ? (
        <div className="card">
          <Fields value={current} label="Your profile" />
        </div>
      ) : null}
      <section className="card" aria-labelledby="change-h">
        <h2 id="change-h">Ask for a change</h2>
        <p>Changes are checked by the organisation before they apply. You can follow them under “My requests”.</p>
        {draft === null ? (
          <button type="button" onClick={() => setDraft(JSON.stringify(current, null, 2))} disabled={!profile.data}>
            Request a change
          </button>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              change.mutate();
            }}
          >
            <JsonEditor label="Your profile as it should be (JSON)" value={draft} onChange={setDraft} check={mustBeObject} rows={10} />
            <div className="actions">
              <button type="submit" className="primary" disabled={!jsonIsValid(draft, mustBeObject) || change.isPending}>
                Send change request
              </button>
              <button type="button" onClick={() => setDraft(null)}>
                Cancel
              </button>
            </div>
          </form>
        )}
        {change.data ? <Notice>Your change request was sent.</Notice> : null}
        <ErrorMessage error={change.error} />
      </section>
      <section className="card" aria-labelledby="erase-h">
        <h2 id="erase-h">Erase my data</h2>
        <p>Ask the organisation to delete your record and everything stored about you. Once approved, it cannot be undone and you can no longer sign in.</p>
        {asked ? (
          <button type="button" className="danger" disabled>
            Erasure requested ({formatDate(asked.creationtime)})
          </button>
        ) : (
          <ConfirmButton subject="of all your data" label="Ask for erasure" confirmLabel="Yes, erase all my data" onConfirm={() => erase.mutate()} disabled={erase.isPending || requests.isLoading} />
        )}
        {erase.data ? <Notice>{erase.data.result === 'request-exists' ? 'You already asked for erasure; it is waiting for approval.' : 'Your erasure request was sent. It is waiting for approval.'}</Notice> : null}
        {asked || erase.data ? (
          <p>
            This browser keeps a receipt of your request (a reference number, not your data). Once you are erased you cannot sign in, but the{' '}
            <Link to="/erasure-receipt">erasure receipt</Link> page shows, without signing in, how many of the systems this organisation shares data with confirmed they erased you too.
          </p>
        ) : null}
        <ErrorMessage error={erase.error} />
      </section>
    </>
  );
}

export function MyAppData() {
  const { call, me } = useMe();
  const apps = useQuery({ queryKey: ['myapps'], queryFn: () => call('AppdataListUserAppNames', me) });
  const names = Array.isArray(apps.data?.apps) ? (apps.data.apps as unknown[]).map(text) : [];
  return (
    <>
      <h1>My app data</h1>
      <QueryState loading={apps.isLoading} error={apps.error} what="your app data" />
      {apps.data && !names.length ? <Empty>No application stores data about you.</Empty> : null}
      {names.map((name) => (
        <AppRecord key={name} appname={name} />
      ))}
    </>
  );
}

function AppRecord({ appname }: { appname: string }) {
  const { call, me } = useMe();
  const data = useQuery({ queryKey: ['myapp', appname], queryFn: () => call('AppdataGet', { ...me, appname }) });
  return (
    <section className="card" aria-label={`Data of ${appname}`}>
      <h2>{appname}</h2>
      <QueryState loading={data.isLoading} error={data.error} what={appname} />
      {data.data ? <Fields value={objectOf(data.data.appdata)} label={`Data of ${appname}`} /> : null}
    </section>
  );
}

export function MySessions() {
  const { call, me } = useMe();
  const list = useQuery({ queryKey: ['mysessions'], queryFn: () => call('SessionListUserSessions', me) });
  return (
    <>
      <h1>My sessions</h1>
      <QueryState loading={list.isLoading} error={list.error} what="your sessions" />
      {list.data ? (
        <Table
          caption="Sessions that name you"
          empty="No open sessions."
          rows={rowsOf(list.data)}
          columns={[
            { key: 'when', label: 'Last change', render: (r) => formatTime(r.when) },
            { key: 'expirationtime', label: 'Ends', render: (r) => formatTime(r.expirationtime) },
            { key: 'sessiondata', label: 'Data', render: (r) => <ValueView value={r.sessiondata} /> },
          ]}
        />
      ) : null}
    </>
  );
}
