// Small building blocks both pages share: messages, tables, forms, the JSON editor and the diff view.
import { useId, useState, type ReactNode } from 'react';
import { text } from '../api/client';
import type { Change } from './diff';

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'Something went wrong.';
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** What a query shows while it loads, when it failed, or when it has nothing. */
export function QueryState({ loading, error, what }: { loading: boolean; error: unknown; what: string }) {
  if (loading) return <Loading what={what} />;
  return <ErrorMessage error={error} />;
}

export interface Column {
  key: string;
  label: string;
  render?: (row: Record<string, unknown>) => ReactNode;
}

export function Table({ caption, rows, columns, empty }: { caption: string; rows: Record<string, unknown>[]; columns: Column[]; empty: string }) {
  if (!rows.length) return <Empty>{empty}</Empty>;
  return (
    <div className="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c.key} data-label={c.label}>
                  {c.render ? c.render(row) : text(row[c.key])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Field({ label, hint, children }: { label: string; hint?: string; children: (id: string, describedBy: string | undefined) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
      {hint ? (
        <small id={hintId} className="muted">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

export function TextField({
  label,
  value,
  onChange,
  hint,
  type = 'text',
  required,
  autoComplete = 'off',
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
  type?: string;
  required?: boolean;
  autoComplete?: string;
}) {
  return (
    <Field label={label} {...(hint ? { hint } : {})}>
      {(id, describedBy) => (
        <input id={id} type={type} value={value} required={required} autoComplete={autoComplete} aria-describedby={describedBy} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}

export function SelectField({ label, value, onChange, options }: { label: string; value: string; onChange: (v: string) => void; options: readonly (string | [string, string])[] }) {
  return (
    <Field label={label}>
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          {options.map((o) => {
            const [v, l] = Array.isArray(o) ? o : [o, o];
            return (
              <option key={v} value={v}>
                {l}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}

/** Parses JSON text; the error says where it went wrong. */
export function parseJson(source: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(source) as unknown };
  } catch (err) {
    return { error: err instanceof Error ? err.message : 'Not valid JSON' };
  }
}

/** A textarea for JSON that says, as you type, whether the text is valid (and what else `check` asks). */
export function JsonEditor({ label, value, onChange, check, rows = 8 }: { label: string; value: string; onChange: (v: string) => void; check?: (v: unknown) => string | null; rows?: number }) {
  const id = useId();
  const parsed = parseJson(value);
  const problem = parsed.error ?? (check ? check(parsed.value) : null);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} className="code" rows={rows} value={value} spellCheck={false} aria-invalid={problem ? true : undefined} aria-describedby={`${id}-state`} onChange={(e) => onChange(e.target.value)} />
      <small id={`${id}-state`} className={problem ? 'error-text' : 'ok-text'}>
        {problem ? `Not valid: ${problem}` : 'Valid JSON'}
      </small>
    </div>
  );
}

export function jsonIsValid(value: string, check?: (v: unknown) => string | null): boolean {
  const parsed = parseJson(value);
  return !parsed.error && !(check && check(parsed.value));
}

export function mustBeObject(v: unknown): string | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? null : 'expected a JSON object';
}

export function DiffView({ changes, caption }: { changes: Change[]; caption: string }) {
  if (!changes.length) return <Empty>No differences.</Empty>;
  return (
    <div className="table-wrap">
      <table className="diff">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Change</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((c) => (
            <tr key={c.path} className={`diff-${c.kind}`}>
              <th scope="row">{c.path}</th>
              <td>{c.kind}</td>
              <td data-label="Before">
                <del>{c.kind === 'added' ? '' : text(c.before)}</del>
              </td>
              <td data-label="After">
                <ins>{c.kind === 'removed' ? '' : text(c.after)}</ins>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** A destructive action asks once more, in the page (no browser dialog). */
export function ConfirmButton({ label, confirmLabel, onConfirm, disabled }: { label: string; confirmLabel: string; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={label}>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}
