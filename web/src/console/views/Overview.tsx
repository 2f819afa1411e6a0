// The tenant at a glance: people, requests pending and overdue, consent given and withdrawn, calls and refusals
// per day (SystemGetOverview, which reads a bounded part of the trail), the audit chain's checkpoint and its
// verification (AuditVerify), and, for the main tenant's admins, the keyring's seals against the rotation point.
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useVault } from '../session';
import { objectOf, text } from '../../api/client';
import { ErrorMessage, Notice, QueryState, SelectField } from '../../shared/ui';
import { DailyChart } from '../chart';

interface Day {
  date: string;
  calls: number;
  refusals: number;
  consentgiven: number;
  consentwithdrawn: number;
  requests: number;
}

/** The tokenizer's default STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS: it rotates the master key by itself there. */
const ROTATE_AFTER_SEALS = 2 ** 30;

const number = (n: unknown) => Number(n ?? 0).toLocaleString('en');

export function Overview() {
  const vault = useVault();
  const [days, setDays] = useState('30');
  const tenant = vault.session.tenant;
  const stats = useQuery({ queryKey: ['stats', tenant], queryFn: () => vault.call('SystemGetSystemStats', {}) });
  const overview = useQuery({ queryKey: ['overview', tenant, days], queryFn: () => vault.call('SystemGetOverview', { days: Number(days) }) });
  const o = objectOf(overview.data);
  const daily = (Array.isArray(o.days) ? o.days : []) as Day[];
  const requests = objectOf(o.requests);
  const charts = useMemo(() => {
    const dates = daily.map((d) => d.date);
    const pick = (k: keyof Day) => daily.map((d) => Number(d[k]));
    return {
      dates,
      calls: [{ label: 'Calls', values: pick('calls') }, { label: 'Refused or failed', values: pick('refusals') }],
      consent: [{ label: 'Consent given', values: pick('consentgiven') }, { label: 'Consent withdrawn', values: pick('consentwithdrawn') }],
      requests: [{ label: 'Requests made', values: pick('requests') }],
    };
  }, [daily]);
  return (
    <>
      <h1>Overview</h1>
      <section className="tiles" aria-label="Now">
        <Tile label="People" value={stats.data ? number(objectOf(stats.data.stats).numusers) : '…'} />
        <Tile label="Requests pending" value={overview.data ? number(requests.pending) : '…'} link="/requests" />
        <Tile label="Requests overdue" value={overview.data ? number(requests.overdue) : '…'} link="/requests" bad={Number(requests.overdue) > 0} />
      </section>
      <QueryState loading={overview.isLoading || stats.isLoading} error={overview.error ?? stats.error} what="the overview" />
      <div className="row">
        <SelectField label="Days shown" value={days} onChange={setDays} options={['7', '30', '90']} />
      </div>
      {o.complete === false ? <p className="muted">The oldest days shown are partial: the overview reads at most the newest {number(o.scanned)} events.</p> : null}
      {daily.length ? (
        <div className="charts">
          <DailyChart title="Calls and refusals per day" dates={charts.dates} series={charts.calls} />
          <DailyChart title="Consent given and withdrawn per day" dates={charts.dates} series={charts.consent} />
          <DailyChart title="Requests made per day" dates={charts.dates} series={charts.requests} />
        </div>
      ) : null}
      <Chain checkpoint={objectOf(o.checkpoint)} />
      {vault.session.kind === 'root' ? <Keyring /> : null}
    </>
  );
}

function Tile({ label, value, link, bad }: { label: string; value: string; link?: string; bad?: boolean }) {
  return (
    <div className={`tile${bad ? ' tile-bad' : ''}`}>
      <p className="tile-label">{link ? <Link to={link}>{label}</Link> : label}</p>
      <p className="tile-value">{value}</p>
    </div>
  );
}

function Chain({ checkpoint }: { checkpoint: Record<string, unknown> }) {
  const vault = useVault();
  const verify = useMutation({ mutationFn: () => vault.call('AuditVerify', {}) });
  const verdict = verify.data as { result?: string; checked?: { from: number; to: number }; broken?: { seq: number; why: string } } | undefined;
  const head = Number(checkpoint.headseq ?? 0);
  const signed = Number(checkpoint.checkpointedseq ?? 0);
  const at = Number(checkpoint.checkpointedat ?? 0);
  return (
    <section className="card" aria-labelledby="chain-h">
      <h2 id="chain-h">Audit chain</h2>
      <label htmlFor="checkpointed">
        Events under a signed checkpoint: {number(signed)} of {number(head)}
        {at ? `, last signed ${new Date(at * 1000).toLocaleString('en-GB', { timeZone: 'UTC' })} UTC` : ''}
      </label>
      <meter id="checkpointed" min={0} max={Math.max(head, 1)} value={signed} low={Math.max(head, 1) * 0.5} optimum={Math.max(head, 1)} />
      <p>
        <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify the chain'}
        </button>
      </p>
      <div role="status" aria-live="polite">
        {verdict?.result === 'intact' ? (
          <Notice>
            The chain is intact: events {verdict.checked?.from} to {verdict.checked?.to} verified.
          </Notice>
        ) : null}
        {verdict?.result === 'broken' ? (
          <p className="error">
            The chain is broken at event {verdict.broken?.seq} ({verdict.broken?.why}).
          </p>
        ) : null}
      </div>
      <ErrorMessage error={verify.error} />
    </section>
  );
}

function Keyring() {
  const vault = useVault();
  const status = useQuery({ queryKey: ['keyring'], queryFn: () => vault.callMain('SystemGetKeyringStatus', {}) });
  const seals = Object.entries(objectOf(status.data?.seals));
  const active = text(status.data?.active);
  return (
    <section className="card" aria-labelledby="keyring-h">
      <h2 id="keyring-h">Keyring seals</h2>
      <p className="muted">
        AES-GCM seals under each master key version, against the point where the tokenizer rotates by itself
        (STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS, 2^30 unless the tokenizer was set otherwise).
      </p>
      <QueryState loading={status.isLoading} error={status.error} what="the keyring" />
      {seals.map(([version, n]) => (
        <div key={version} className="meter-row">
          <label htmlFor={`seals-${version}`}>
            Version {version}
            {version === active ? ' (active)' : ''}: {number(n)} of {number(ROTATE_AFTER_SEALS)} seals ({((Number(n) * 100) / ROTATE_AFTER_SEALS).toFixed(4)} %)
          </label>
          <meter id={`seals-${version}`} min={0} max={ROTATE_AFTER_SEALS} high={ROTATE_AFTER_SEALS * 0.9} optimum={0} value={Number(n)} />
        </div>
      ))}
    </section>
  );
}
