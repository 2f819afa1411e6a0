// Consents (give and withdraw, each legal basis explained), requests and their status, shares, the data export.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { objectOf, rowsOf, text } from '../api/client';
import { ConfirmButton, CopyButton, Empty, ErrorMessage, Notice, QueryState, Table, TextField } from '../shared/ui';
import { CappedNote, LifetimeField, lifetimeText, useLifetime } from '../shared/lifetime';
import { FieldChoices, fieldPaths, pathLabel, sharedLink } from '../shared/share';
import { download, formatTime } from '../shared/session';
import { useMe } from './session';
import { exportHtml, gatherExport } from './export';

const BASIS_WORDS: Record<string, string> = {
  consent: 'Only with your consent, which you may withdraw at any time.',
  contract: 'Needed to fulfil a contract with you.',
  'legal-requirement': 'Required by law.',
  'legitimate-interest': 'In the organisation’s legitimate interest, weighed against yours.',
  'public-interest': 'In the public interest.',
  'vital-interest': 'To protect someone’s life.',
};

export function MyConsents() {
  const { call, me } = useMe();
  const client = useQueryClient();
  const bases = useQuery({ queryKey: ['bases'], queryFn: () => call('LegalBasisListAgreements', {}) });
  const mine = useQuery({ queryKey: ['myagreements'], queryFn: () => call('AgreementListUserAgreements', me) });
  const status = new Map(rowsOf(mine.data).map((r) => [text(r.brief), text(r.status)]));
  const refresh = () => client.invalidateQueries({ queryKey: ['myagreements'] });
  const [done, setDone] = useState('');
  const set = useMutation({
    mutationFn: ({ brief, give }: { brief: string; give: boolean }) => call('AgreementAccept', { ...me, brief, status: give ? 'active' : 'canceled', agreementmethod: 'privacy-portal' }),
    onSuccess: async (_a, { brief, give }) => {
      setDone(give ? `You gave consent to ${brief}.` : `You withdrew your consent to ${brief}.`);
      await refresh();
    },
  });
  const rows = rowsOf(bases.data).filter((r) => r.status !== 'deleted');
  return (
    <>
      <h1>My consents</h1>
      <QueryState loading={bases.isLoading || mine.isLoading} error={bases.error ?? mine.error} what="your consents" />
      {done ? <Notice>{done}</Notice> : null}
      <ErrorMessage error={set.error} />
      {bases.data && !rows.length ? <Empty>This organisation has not defined any legal basis.</Empty> : null}
      {rows.map((r) => {
        const brief = text(r.brief);
        const state = status.get(brief) ?? 'none';
        const active = state === 'active';
        const userControl = r.usercontrol !== false && r.basistype === 'consent';
        return (
          <section key={brief} className="card" aria-labelledby={`basis-${brief}`}>
            <h2 id={`basis-${brief}`}>{text(r.shortdesc) || brief}</h2>
            {r.fulldesc ? <p>{text(r.fulldesc)}</p> : null}
            <p className="muted">
              Legal basis: {text(r.basistype)}. {BASIS_WORDS[text(r.basistype)] ?? ''}
            </p>
            <p>
              Your answer: <strong>{active ? (r.basistype === 'consent' ? 'consent given' : 'in effect') : state === 'none' ? 'not asked yet' : state}</strong>
            </p>
            {userControl ? (
              <button type="button" className={active ? 'danger' : 'primary'} disabled={set.isPending} onClick={() => set.mutate({ brief, give: !active })}>
                {active ? `Withdraw consent to ${brief}` : `Give consent to ${brief}`}
              </button>
            ) : (
              <p className="muted">This processing does not depend on your consent.</p>
            )}
          </section>
        );
      })}
    </>
  );
}

const REQUEST_WORDS: Record<string, string> = { 'forget-me': 'Erase my data', 'change-profile': 'Change my profile', 'agreement-withdraw': 'Withdraw consent', 'change-app-data': 'Change app data' };

export function requestLabel(type: string): string {
  return REQUEST_WORDS[type] ?? type;
}

export function MyRequests() {
  const { call, me } = useMe();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['myrequests'], queryFn: () => call('UserRequestListUserRequests', me) });
  const cancel = useMutation({ mutationFn: (requestuuid: string) => call('UserRequestCancel', { requestuuid, reason: 'withdrawn by the person' }), onSuccess: () => client.invalidateQueries({ queryKey: ['myrequests'] }) });
  return (
    <>
      <h1>My requests</h1>
      <QueryState loading={list.isLoading} error={list.error} what="your requests" />
      {list.data ? (
        <Table
          caption="Requests you made"
          empty="You have not asked for anything yet."
          rows={rowsOf(list.data)}
          columns={[
            { key: 'requesttype', label: 'Request', render: (r) => requestLabel(text(r.requesttype)) },
            { key: 'status', label: 'Status' },
            { key: 'creationtime', label: 'Asked', render: (r) => formatTime(r.creationtime) },
            { key: 'when', label: 'Last change', render: (r) => formatTime(r.when) },
            { key: 'act', label: 'Action', render: (r) => (r.status === 'open' ? <ConfirmButton subject={`"${requestLabel(text(r.requesttype))}"`} label="Withdraw request" confirmLabel="Yes, withdraw it" onConfirm={() => cancel.mutate(text(r.requestuuid))} /> : null) },
          ]}
        />
      ) : null}
      <ErrorMessage error={cancel.error} />
    </>
  );
}

export function MyShares() {
  const { call, me } = useMe();
  const profile = useQuery({ queryKey: ['me'], queryFn: () => call('UserGet', me) });
  const paths = fieldPaths(objectOf(profile.data?.profile));
  const [chosen, setChosen] = useState<string[]>([]);
  const [partner, setPartner] = useState('');
  const [lifetime, setLifetime] = useLifetime(7, 'd');
  const finaltime = lifetimeText(lifetime);
  const client = useQueryClient();
  const links = useQuery({ queryKey: ['myshares'], queryFn: () => call('SharedRecordListUserRecords', me) });
  const share = useMutation({
    mutationFn: () => call('SharedRecordCreate', { ...me, fields: chosen, ...(partner.trim() ? { partner: partner.trim() } : {}), finaltime: finaltime ?? '' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['myshares'] }),
  });
  const revoke = useMutation({
    mutationFn: (recorduuid: string) => call('SharedRecordDelete', { ...me, recorduuid }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['myshares'] }),
  });
  const made = share.data ? sharedLink(text(share.data.recorduuid)) : '';
  return (
    <>
      <h1>Share my data</h1>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          share.mutate();
        }}
      >
        <p>Make a link that lets someone read only the details you choose, until it expires.</p>
        <QueryState loading={profile.isLoading} error={profile.error} what="your details" />
        <FieldChoices legend="Details to share" paths={paths} chosen={chosen} onChange={setChosen} />
        <TextField label="Who it is for (optional)" value={partner} onChange={setPartner} />
        <LifetimeField label="Expires after" value={lifetime} onChange={setLifetime} />
        <button type="submit" className="primary" disabled={share.isPending || !chosen.length || !finaltime}>
          Create shared link
        </button>
        {share.data ? (
          <Notice>
            Your link, valid until {formatTime(share.data.expirationtime)}
            <CappedNote answer={share.data} expires={share.data.expirationtime} />: <a href={made}>{made}</a> <CopyButton value={made} what="link" />
          </Notice>
        ) : null}
        <ErrorMessage error={share.error} />
      </form>
      <section className="card" aria-labelledby="links-h">
        <h2 id="links-h">My shared links</h2>
        <QueryState loading={links.isLoading} error={links.error} what="your shared links" />
        <Table
          caption="Links that can read some of my data"
          empty="No shared links."
          rows={rowsOf(links.data)}
          columns={[
            { key: 'recorduuid', label: 'Link', render: (r) => <a href={sharedLink(text(r.recorduuid))}>{text(r.recorduuid)}</a> },
            { key: 'fields', label: 'Shows', render: (r) => (Array.isArray(r.fields) ? r.fields.map((f) => pathLabel(text(f))).join(', ') : 'everything') },
            { key: 'partner', label: 'For', render: (r) => text(r.partner) || '—' },
            { key: 'expirationtime', label: 'Until', render: (r) => formatTime(r.expirationtime) },
            {
              key: 'revoke',
              label: 'Revoke',
              render: (r) => (
                <ConfirmButton subject={`the link ${text(r.partner) ? `for ${text(r.partner)}` : text(r.recorduuid)}`} label="Revoke" confirmLabel="Revoke this link now" onConfirm={() => revoke.mutate(text(r.recorduuid))} disabled={revoke.isPending} />
              ),
            },
          ]}
        />
        <ErrorMessage error={revoke.error} />
      </section>
    </>
  );
}

export function MyReport() {
  const me = useMe();
  const run = useMutation({
    mutationFn: async (kind: 'json' | 'html') => {
      const data = await gatherExport(me);
      if (kind === 'json') download(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }), 'my-data.json');
      else download(new Blob([exportHtml(data)], { type: 'text/html' }), 'my-data.html');
    },
  });
  return (
    <>
      <h1>Download my data</h1>
      <p>A copy of what the vault holds about you: your profile and its versions, consents, app data, sessions, requests, files and the log of who accessed your record.</p>
      <div className="actions">
        <button type="button" className="primary" disabled={run.isPending} onClick={() => run.mutate('json')}>
          Download as JSON
        </button>
        <button type="button" disabled={run.isPending} onClick={() => run.mutate('html')}>
          Download as a web page (HTML)
        </button>
      </div>
      {run.isPending ? <p role="status">Gathering your data…</p> : null}
      {run.isSuccess ? <Notice>Your download has started.</Notice> : null}
      <ErrorMessage error={run.error} />
    </>
  );
}
