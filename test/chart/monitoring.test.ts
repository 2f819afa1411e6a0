// The chart's Grafana dashboard and Prometheus alerts: rendered when asked, the dashboard JSON parses, and every
// query and alert names only metrics the code exports (read from the sources, with prom-client's default metrics and
// histogram series), besides Prometheus's own `up`. Every alert the operations guide promises is there.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderer, repoRoot, validate, values } from './release.js';

const on = values({ metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true }, grafanaDashboard: { enabled: true } } });

/** Every metric name the api, the tokenizer and the operator register, from their sources. */
function exported(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/name: '([a-z_:][a-z0-9_:]*)'/g)) names.add(m[1]!);
    }
  };
  for (const dir of ['api', 'tokenizer', 'operator', 'proto']) walk(join(repoRoot, dir));
  return names;
}

const FUNCTIONS = new Set(['sum', 'max', 'min', 'avg', 'count', 'rate', 'increase', 'changes', 'histogram_quantile', 'clamp_min', 'time', 'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'bool']);

/** The metric names a PromQL expression reads: identifiers outside label matchers, grouping clauses and ranges. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/"[^"]*"/g, ' ');
  return [...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)].map((m) => m[0]).filter((w) => !FUNCTIONS.has(w) && !/^\d/.test(w) && !/^e\d+$/.test(w));
}

function known(name: string, names: Set<string>): boolean {
  if (name === 'up') return true;
  // prom-client's default metrics (process_*, nodejs_*), and a histogram's series.
  if (/^(process|nodejs)_/.test(name)) return true;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return names.has(name) || names.has(base);
}

describe('monitoring in the chart', () => {
  it('renders nothing unless asked', () => {
    expect(renderer.manifest('prometheusrule.yaml', values())).toBeUndefined();
    expect(renderer.manifest('grafana-dashboard.yaml', values())).toBeUndefined();
    expect(validate(on), JSON.stringify(validate.errors)).toBe(true);
  });

  it('ships a dashboard whose every query reads exported metrics', () => {
    const map = renderer.manifest('grafana-dashboard.yaml', on);
    expect(map.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const dashboard = JSON.parse(map.data['strongroom.json']);
    expect(dashboard).toMatchObject({ title: 'Strongroom', uid: 'strongroom' });
    const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(10);
    const names = exported();
    const unknown = exprs.flatMap(metricsOf).filter((n) => !known(n, names));
    expect(unknown).toEqual([]);
  });

  it('ships the promised alerts, each reading exported metrics', () => {
    const rule = renderer.manifest('prometheusrule.yaml', on);
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    const rules: { alert: string; expr: string; labels: { severity: string } }[] = rule.spec.groups.flatMap((g: { rules: unknown[] }) => g.rules);
    for (const alert of ['StrongroomDown', 'StrongroomServerErrors', 'StrongroomDatabaseOrTokenizerOutage', 'StrongroomAuditChainBroken', 'StrongroomAuditQueueDeep', 'StrongroomNoCheckpoint', 'StrongroomKeySealsNearLimit', 'StrongroomTokenizerRestarts', 'StrongroomRewrapStalled']) {
      expect(rules.map((r) => r.alert)).toContain(alert);
    }
    const names = exported();
    // The oracle reads what it should: the rewrap's series (api/metrics.ts) are among the exported names.
    for (const n of ['strongroom_rewrap_pending_keys', 'strongroom_rewrap_last_progress_timestamp_seconds', 'strongroom_rewrap_keys_total', 'strongroom_rewrap_failures_total']) expect(names).toContain(n);
    for (const r of rules) {
      expect(['critical', 'warning']).toContain(r.labels.severity);
      expect(metricsOf(r.expr).length, r.alert).toBeGreaterThan(0);
      expect(metricsOf(r.expr).filter((n) => !known(n, names)), r.alert).toEqual([]);
    }
    // The oracle itself: a name the code does not export is caught.
    expect(metricsOf('sum(rate(strongroom_made_up_total[5m]))').filter((n) => !known(n, names))).toEqual(['strongroom_made_up_total']);
  });
});
