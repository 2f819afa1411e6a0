// A person's requests, audit events and report (JSON and HTML).
import { Fragment, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useVault } from '../session';
import { objectOf, rowsOf, text, type Answer } from '../../api/client';
import { Copyable, ErrorMessage, JsonBlock, QueryState, Table, Verdict } from '../../shared/ui';
import { whoForStaff, whoOf } from '../../shared/who';
import { download, formatTime } from '../../shared/session';
import { RequestDetail } from './RequestDetail';

export function RequestsTab({ token }: { token: string }) {
  const vault = useVault();
  const [open, setOpen] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['requests', 'user', token], queryFn: () => vault.call('UserRequestListUserRequests', { mode: 'token', identity: token }) });
  return (
    <section aria-labelledby="requests-h">
      <h2 id="requests-h">Requests</h2>
      <QueryState loading={list.isLoading} error={list.error} what="requests" />
      <Table
        caption="This person's requests"
        empty="No requests."
        rows={rowsOf(list.data)}
        columns={[
          { key: 'requesttype', label: 'Type' },
          { key: 'status', label: 'Status' },
          { key: 'creationtime', label: 'Made', render: (r) => formatTime(r.creationtime) },
          { key: 'view', label: 'Details', render: (r) => <button type="button" onClick={() => setOpen(text(r.requestuuid))}>View</button> },
        ]}
      />
      {open ? <RequestDetail requestuuid={open} /> : null}
    </section>
  );
}

export function AuditTab({ token }: { token: string }) {
  const vault = useVault();
  const [offset, setOffset] = useState(0);
  const [event, setEvent] = useState<string | null>(null);
  const list = useQuery({ queryKey: ['audit', token, offset], queryFn: () => vault.call('AuditListUserEvents', { mode: 'token', identity: token, offset, limit: 25 }) });
  const detail = useQuery({ queryKey: ['event', event], queryFn: () => vault.call('AuditGetEvent', { auditeventuuid: event! }), enabled: event !== null });
  const total = Number(list.data?.total ?? 0);
  return (
    <section aria-labelledby="audit-h">
      <h2 id="audit-h">Audit events</h2>
      <QueryState loading={list.isLoading} error={list.error} what="audit events" />
      <AuditTable rows={rowsOf(list.data)} caption={`Events about this person (${total})`} onOpen={setEvent} />
      <div className="actions">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 25))}>
          Newer
        </button>
        <button type="button" disabled={offset + 25 >= total} onClick={() => setOffset(offset + 25)}>
          Older
        </button>
      </div>
      <QueryState loading={detail.isLoading && event !== null} error={detail.error} what="the event" />
      {detail.data ? <EventDetail event={detail.data} /> : null}
    </section>
  );
}

/** Text that wraps between words only: a role name such as `copy-9a45` is not split at its hyphen. */
function WholeWords({ text: said }: { text: string }) {
  return (
    <>
      {said.split(' ').map((word, i) => (
        <Fragment key={i}>
          {i ? ' ' : ''}
          <span className="nowrap">{word}</span>
        </Fragment>
      ))}
    </>
  );
}

export function AuditTable({ rows, caption, onOpen }: { rows: Record<string, unknown>[]; caption: string; onOpen: (uuid: string) => void }) {
  return (
    <Table
      className="audit"
      caption={caption}
      empty="No audit events."
      rows={rows}
      columns={[
        { key: 'when', label: 'When', render: (r) => formatTime(r.when) },
        { key: 'title', label: 'Operation' },
        { key: 'status', label: 'Result', render: (r) => <Verdict value={text(r.status)} /> },
        { key: 'mode', label: 'Named by' },
        { key: 'who', label: 'Who', render: (r) => <WholeWords text={whoForStaff(r.who)} /> },
        { key: 'msg', label: 'Message' },
        { key: 'open', label: 'Details', render: (r) => <button type="button" onClick={() => onOpen(text(r.auditeventuuid))}>Details</button> },
      ]}
    />
  );
}

/** One event opened (AuditGetEvent): who made it, with the client's address from its sealed details, then all of it. */
export function EventDetail({ event }: { event: Answer }) {
  const who = whoOf(event.who);
  const none = <span className="muted">not recorded</span>;
  return (
    <section className="card" aria-labelledby="event-h">
      <h3 id="event-h">
        Event {text(event.title)} at {formatTime(event.when)}
      </h3>
      <dl className="props">
        <dt>Who</dt>
        <dd>{whoForStaff(event.who)}</dd>
        <dt>Credential</dt>
        <dd>{who.kind}</dd>
        <dt>Xtoken id</dt>
        <dd>{who.xtokenid ? <Copyable value={who.xtokenid} what="xtoken id" /> : none}</dd>
        <dt>Role</dt>
        <dd>{who.rolename ?? (who.roleid !== null ? `#${who.roleid}` : none)}</dd>
        <dt>Person (login xtoken)</dt>
        <dd>{who.person ? <code>{who.person}</code> : none}</dd>
        <dt>Client address</dt>
        <dd>{who.address ? <code>{who.address}</code> : none}</dd>
        <dt>Request id</dt>
        <dd>{who.requestid ? <code>{who.requestid}</code> : none}</dd>
        <dt>Result</dt>
        <dd>
          <Verdict value={text(event.eventstatus ?? event.status)} /> {text(event.msg)}
        </dd>
      </dl>
      <JsonBlock value={{ ...event, details: objectOf(event.details) }} label="Audit event details" />
    </section>
  );
}

export function ReportTab({ token }: { token: string }) {
  const vault = useVault();
  const json = useMutation({
    mutationFn: async () => {
      const answer = await vault.call('SystemGetUserReport', { mode: 'token', identity: token });
      download(new Blob([JSON.stringify(answer.report, null, 2)], { type: 'application/json' }), 'report.json');
    },
  });
  const html = useMutation({
    mutationFn: async () => {
      const answer = await vault.call('SystemGetUserHTMLReport', { mode: 'token', identity: token });
      download(new Blob([text(answer.html)], { type: 'text/html' }), 'report.html');
    },
  });
  return (
    <section aria-labelledby="report-h">
      <h2 id="report-h">Report</h2>
      <p>Everything the vault holds about this person, as one document (a data subject access request export).</p>
      <div className="actions">
        <button type="button" className="primary" onClick={() => json.mutate()} disabled={json.isPending}>
          Download JSON report
        </button>
        <button type="button" onClick={() => html.mutate()} disabled={html.isPending}>
          Download HTML report
        </button>
      </div>
      <ErrorMessage error={json.error ?? html.error} />
    </section>
  );
}
