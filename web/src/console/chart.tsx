// A line chart of counts per day drawn by uPlot (a small canvas charting library: no eval, no inline style
// markup, only CSSOM writes, which the pages' Content-Security-Policy allows), with the numbers as a table beside it
// for screen readers and for anyone who wants them exact.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
}

/**
 * Colours with enough contrast on white, the same as `.swatch-0` … `.swatch-3` in styles.css; the second series is
 * also dashed, and the legend names each one, so no line is told apart by colour alone.
 */
const PALETTE = ['#0b5cad', '#b3261e', '#1e6b34', '#8a4b00'];

/** `dates`: ISO days (YYYY-MM-DD), oldest first; each series has one value per day. */
export function DailyChart({ title, dates, series }: { title: string; dates: string[]; series: Series[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: 220,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) }],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: PALETTE[i % 4], width: 2, points: { show: dates.length <= 31 }, ...(i % 2 ? { dash: [6, 4] } : {}) }))],
    };
    const plot = new uPlot(opts, [xs, ...series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [dates, series]);
  const total = (s: Series) => s.values.reduce((a, b) => a + b, 0);
  return (
    <figure className="chart">
      <figcaption>
        <strong>{title}</strong>
        <ul className="legend">
          {series.map((s, i) => (
            <li key={s.label}>
              <span className={`swatch swatch-${i % 4}`} aria-hidden="true" />
              {s.label}: {total(s)} in {dates.length} days
            </li>
          ))}
        </ul>
      </figcaption>
      <div ref={box} className="chart-canvas" role="img" aria-label={`${title}: ${series.map((s) => `${s.label} ${total(s)}`).join(', ')} in the last ${dates.length} days`} />
      <details>
        <summary>The numbers by day</summary>
        <div className="table-wrap">
          <table>
            <caption>{title}, by day (UTC)</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th key={s.label} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {dates.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{d}</th>
                  {series.map((s) => (
                    <td key={s.label}>{s.values[i]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
