// The tenant's audit trail through the unlock window, filtered by operation, result and person.
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { useVault } from '../session';
import { UnlockBar, useUnlock } from '../unlock';
import { rowsOf, text } from '../../api/client';
import { Empty, ErrorMessage, Notice, QueryState, SelectField, TextField } from '../../shared/ui';
import { AuditTable, EventDetail } from './PersonActivity';

const PAGE = 100;

export function Audit() {
  const vault = useVault();
  const { uuid } = useUnlock();
  const [offset, setOffset] = useState(0);
  const [operation, setOperation] = useState('');
  const [result, setResult] = useState('any');
  const [record, setRecord] = useState('');
  const [housekeeping, setHousekeeping] = useState(false);
  const event = useParams().eventuuid ?? null;
  const navigate = useNavigate();
  const setEvent = (uuid: string) => void navigate(`/audit/${encodeURIComponent(uuid)}`);
  const list = useQuery({
    queryKey: ['auditall', vault.session.tenant, uuid, offset, housekeeping],
    queryFn: () => vault.call('BulkListAllAuditEvents', { unlockuuid: uuid!, offset, limit: PAGE, ...(housekeeping ? { includehousekeeping: true } : {}) }),
    enabled: uuid !== null,
  });
  const detail = useQuery({ queryKey: ['event', event], queryFn: () => vault.call('AuditGetEvent', { auditeventuuid: event! }), enabled: event !== null });
  const rows = rowsOf(list.data).filter(
    (r) =>
      (!operation || text(r.title).toLowerCase().includes(operation.toLowerCase())) &&
      (result === 'any' || text(r.status) === result) &&
      (!record.trim() || text(r.record) === record.trim()),
  );
  const total = Number(list.data?.total ?? 0);
  const verify = useMutation({ mutationFn: () => vault.call('AuditVerify', {}) });
  const verdict = verify.data as { result?: string; checked?: { from: number; to: number }; broken?: { seq: number; why: string } } | undefined;
  return (
    <>
      <h1>Audit trail</h1>
      <section className="card" aria-labelledby="verify-h">
        <h2 id="verify-h">Chain verification</h2>
        <p>Recomputes every link of this tenant's chain with the tokenizer's key and checks it against the signed checkpoints.</p>
        <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify the chain'}
        </button>
        <div role="status" aria-live="polite">
          {verdict?.result === 'intact' ? (
            <Notice>
              The chain is intact: events {verdict.checked?.from} to {verdict.checked?.to} verified.
            </Notice>
          ) : null}
          {verdict?.result === 'broken' ? (
            <p className="error">
              The chain is broken at event {verdict.broken?.seq} ({verdict.broken?.why}): events up to {verdict.checked?.to} were checked.
            </p>
          ) : null}
        </div>
        <ErrorMessage error={verify.error} />
      </section>
      <UnlockBar what="the audit trail" />
      <div className="row">
        <TextField label="Operation contains" value={operation} onChange={setOperation} />
        <SelectField label="Result" value={result} onChange={setResult} options={['any', 'ok', 'error']} />
        <TextField label="Person (token)" value={record} onChange={setRecord} />
        <label className="choice">
          <input
            type="checkbox"
            checked={housekeeping}
            onChange={(e) => {
              setHousekeeping(e.target.checked);
              setOffset(0);
            }}
          />{' '}
          Show the console&apos;s own reads
        </label>
      </div>
      <p className="muted">The console&apos;s own reads about the vault (tenants, roles, policies, counts) are marked as housekeeping and left out unless shown.</p>
      {uuid === null && !list.data ? <Empty>Unlock to read the audit trail.</Empty> : null}
      <QueryState loading={list.isLoading && uuid !== null} error={list.error} what="audit events" />
      {list.data ? (
        <>
          <AuditTable rows={rows} caption={`Events ${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}, ${rows.length} matching the filters`} onOpen={setEvent} />
          <div className="actions">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer
            </button>
            <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </div>
        </>
      ) : null}
      <QueryState loading={detail.isLoading && event !== null} error={detail.error} what="the event" />
      {detail.data ? <EventDetail event={detail.data} /> : null}
    </>
  );
}
