// Small building blocks both pages share: messages, tables, forms, the JSON editor and the diff view.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
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

export function Table({ caption, rows, columns, empty, className }: { caption: string; rows: Record<string, unknown>[]; columns: Column[]; empty: string; className?: string }) {
  if (!rows.length) return <Empty>{empty}</Empty>;
  return (
    <div className="table-wrap">
      <table className={className}>
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

/**
 * What cannot be undone asks once more in a modal dialog that names what it acts on (`subject`) and says what
 * follows (`children`). Both buttons are styled as destructive, never as the blue primary; focus starts on
 * "Keep it", so Enter does not erase by accident; Escape closes the dialog.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  disabled,
  subject,
  children,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  /** The person or object acted on, named in the dialog's title: "Delete person Grace Hopper?" */
  subject?: ReactNode;
  children?: ReactNode;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <button type="button" className="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
      {asking ? (
        <ConfirmDialog
          title={
            <>
              {label}
              {subject ? <> {subject}</> : null}?
            </>
          }
          confirmLabel={confirmLabel}
          onClose={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            onConfirm();
          }}
        >
          {children ?? <p>This cannot be undone.</p>}
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function ConfirmDialog({ title, confirmLabel, onConfirm, onClose, children }: { title: ReactNode; confirmLabel: string; onConfirm: () => void; onClose: () => void; children: ReactNode }) {
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    // showModal focuses the first button, the destructive one: move to the safe choice.
    keep.current?.focus();
  }, []);
  return (
    <dialog ref={ref} className="confirm-dialog" aria-labelledby={`${id}-t`} aria-describedby={`${id}-d`} onClose={onClose}>
      <h2 id={`${id}-t`}>{title}</h2>
      <div id={`${id}-d`}>{children}</div>
      <div className="actions">
        <button type="button" className="danger primary" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" ref={keep} onClick={() => ref.current?.close()}>
          Keep it
        </button>
      </div>
    </dialog>
  );
}

/** A label for a field name: `date_of_birth` and `dateOfBirth` read "date of birth". */
export function fieldLabel(key: string): string {
  return key.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A stored value as a person reads it: nested objects as nested fields, lists as lists, never a JSON string. */
export function ValueView({ value }: { value: unknown }) {
  if (Array.isArray(value)) {
    if (!value.length) return <span className="muted">none</span>;
    return (
      <ul className="values">
        {value.map((v, i) => (
          <li key={i}>
            <ValueView value={v} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object' && value !== null) return <Fields value={value as Record<string, unknown>} />;
  if (value === null || value === '') return <span className="muted">empty</span>;
  if (typeof value === 'boolean') return <>{value ? 'yes' : 'no'}</>;
  return <>{text(value)}</>;
}

/** An object's fields as a definition list, with the raw key beside a readable label when they differ. */
export function Fields({ value, label, className = 'props' }: { value: Record<string, unknown>; label?: string; className?: string }) {
  const entries = Object.entries(value);
  if (!entries.length) return <span className="muted">no fields</span>;
  return (
    <dl className={className} aria-label={label}>
      {entries.map(([k, v]) => (
        <div key={k} className="contents">
          <dt>
            {fieldLabel(k)}
            {fieldLabel(k) !== k ? <small className="muted"> ({k})</small> : null}
          </dt>
          <dd>
            <ValueView value={v} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** How a person is named on screen: name, else email, login or phone. */
export function personLabel(profile: Record<string, unknown>): string {
  for (const key of ['name', 'email', 'login', 'phone']) if (text(profile[key])) return text(profile[key]);
  return 'unnamed person';
}

/** Copies `value` to the clipboard; says so in a polite live region, or asks to copy by hand when it cannot. */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span className="copy">
      <button type="button" className="small" onClick={() => void copy()}>
        Copy {what}
      </button>
      <span role="status" className="muted">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copying is blocked here: select the text and copy it.' : ''}
      </span>
    </span>
  );
}

/** An identifier or a secret shown in monospace, with its copy button. */
export function Copyable({ value, what }: { value: string; what: string }) {
  return (
    <>
      <code>{value}</code> <CopyButton value={value} what={what} />
    </>
  );
}

/** A decision or a check in words and in a colour by its meaning: allowed/intact is good, partial is a warning. */
export function Verdict({ value }: { value: string }) {
  const meaning = ['allow', 'allowed', 'ok', 'intact', 'active', 'approved', 'delivered', 'confirmed'].includes(value) ? 'good' : ['partial', 'open', 'pending', 'paused'].includes(value) ? 'warn' : 'bad';
  return <span className={`tag verdict-${meaning}`}>{value}</span>;
}
