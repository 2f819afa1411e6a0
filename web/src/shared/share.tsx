// Shares of a person's fields, for the portal and the console alike: the field paths a share may name, the tick
// boxes that choose them, and the link its recipient opens (/portal/shared/<uuid>, web/src/portal/Shared.tsx).
import { fieldLabel } from './ui';

/** The paths a share may name: every field of the profile, nested ones as `address.city`. */
export function fieldPaths(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) => {
    if (!/^[A-Za-z0-9_$@-]+$/.test(k)) return [];
    const path = `${prefix}${k}`;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length ? fieldPaths(v as Record<string, unknown>, `${path}.`) : [path];
  });
}

/** `address.city` as a person reads it: "address › city". */
export function pathLabel(path: string): string {
  return path.split('.').map(fieldLabel).join(' › ');
}

/** The address a person gives the recipient of a share (its page shows the expiry the vault answers). */
export function sharedLink(recorduuid: string): string {
  return `${window.location.origin}/portal/shared/${encodeURIComponent(recorduuid)}`;
}

/** One tick box per field the person has: only fields that exist can be shared. */
export function FieldChoices({ legend, paths, chosen, onChange }: { legend: string; paths: string[]; chosen: string[]; onChange: (chosen: string[]) => void }) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {paths.map((path) => (
        <label key={path} className="choice">
          <input type="checkbox" checked={chosen.includes(path)} onChange={(e) => onChange(e.target.checked ? [...chosen, path] : chosen.filter((p) => p !== path))} /> {pathLabel(path)}
        </label>
      ))}
    </fieldset>
  );
}
