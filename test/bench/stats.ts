// Small statistics helpers for the benchmark report.
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: { op: '>=' | '<='; value: number };
}

export function printTable(rows: Row[]): void {
  const lines = rows.map((r) => {
    const v = r.value >= 100 ? r.value.toFixed(0) : r.value.toFixed(2);
    const t = r.target ? `${r.target.op} ${r.target.value}` : '';
    const ok = r.target ? ((r.target.op === '>=' ? r.value >= r.target.value : r.value <= r.target.value) ? 'pass' : 'MISS') : '';
    return [r.metric, `${v} ${r.unit}`, t, ok];
  });
  const widths = [0, 1, 2, 3].map((c) => Math.max(...lines.map((l) => l[c]!.length), ['metric', 'value', 'target', ''][c]!.length));
  const fmt = (l: string[]) => l.map((x, c) => x.padEnd(widths[c]!)).join('  ');
  console.log(fmt(['metric', 'value', 'target', '']));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
}
