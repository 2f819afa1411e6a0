// A lifetime as a number and a unit picked by name, sent in the vault's duration grammar (`30min`, `12h`, `7d`,
// `6mo`, `1y`: api/vault/durations.ts), so nobody has to know that a bare `m` is a month there. And the note shown
// when the vault cut a lifetime to its ceiling (`capped: true` in the answer).
import { useState } from 'react';
import { Field } from './ui';
import { formatTime } from './session';
import { type Lifetime, type Unit, UNITS } from './duration';

export { lifetimeText, type Lifetime } from './duration';

/** State for a LifetimeField, starting at e.g. `useLifetime(1, 'h')`. */
export function useLifetime(amount: number, unit: Unit): [Lifetime, (l: Lifetime) => void] {
  return useState<Lifetime>({ amount: String(amount), unit });
}

/** The number and its unit, labelled `label` and `<label> unit`. */
export function LifetimeField({ label, value, onChange }: { label: string; value: Lifetime; onChange: (l: Lifetime) => void }) {
  return (
    <div className="lifetime">
      <Field label={label}>
        {(id) => <input id={id} type="number" inputMode="numeric" min={1} step={1} value={value.amount} required onChange={(e) => onChange({ ...value, amount: e.target.value })} />}
      </Field>
      <Field label={`${label} unit`}>
        {(id) => (
          <select id={id} value={value.unit} onChange={(e) => onChange({ ...value, unit: e.target.value as Unit })}>
            {UNITS.map(([u, name]) => (
              <option key={u} value={u}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}

/** "capped to <date>" beside an expiry when the vault cut the lifetime asked for; nothing otherwise. */
export function CappedNote({ answer, expires }: { answer: Record<string, unknown>; expires: unknown }) {
  if (answer.capped !== true) return null;
  return <strong className="capped"> (capped to {formatTime(expires)}: the longest lifetime this vault allows)</strong>;
}
