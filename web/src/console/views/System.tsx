// System stats (SystemGetSystemStats) and health (GET /readyz: database and tokenizer reachable).
import { useQuery } from '@tanstack/react-query';
import { useVault } from '../session';
import { objectOf, text } from '../../api/client';
import { QueryState } from '../../shared/ui';

const LABELS: Record<string, string> = {
  numusers: 'People',
  numtenants: 'Tenants',
  numtokens: 'Tokens',
  numsessions: 'Sessions',
  totalnumrecords: 'Records in all',
};

async function readiness(): Promise<Record<string, unknown>> {
  const res = await fetch('/readyz', { cache: 'no-store' });
  return (await res.json()) as Record<string, unknown>;
}

export function System() {
  const vault = useVault();
  const stats = useQuery({ queryKey: ['stats', vault.session.tenant], queryFn: () => vault.call('SystemGetSystemStats', {}) });
  const health = useQuery({ queryKey: ['readyz'], queryFn: readiness, refetchInterval: 15_000 });
  const s = objectOf(stats.data?.stats);
  return (
    <>
      <h1>System</h1>
      <section className="card" aria-labelledby="health-h">
        <h2 id="health-h">Health</h2>
        <QueryState loading={health.isLoading} error={health.error} what="health" />
        {health.data ? (
          <dl className="props">
            <dt>Vault</dt>
            <dd>{health.data.status === 'ok' ? 'Ready' : 'Not ready'}</dd>
            <dt>Database</dt>
            <dd>{text(health.data.database)}</dd>
            <dt>Tokenizer</dt>
            <dd>{text(health.data.tokenizer)}</dd>
          </dl>
        ) : null}
      </section>
      <section className="card" aria-labelledby="stats-h">
        <h2 id="stats-h">Statistics</h2>
        <QueryState loading={stats.isLoading} error={stats.error} what="statistics" />
        {stats.data ? (
          <dl className="props">
            {Object.entries(LABELS).map(([k, label]) => (
              <div key={k} className="contents">
                <dt>{label}</dt>
                <dd>{text(s[k])}</dd>
              </div>
            ))}
          </dl>
        ) : null}
      </section>
    </>
  );
}
