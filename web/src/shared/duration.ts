// The lifetime picker's value and the duration text it sends, in the vault's grammar (api/vault/durations.ts).

export const UNITS = [
  ['min', 'minutes'],
  ['h', 'hours'],
  ['d', 'days'],
  ['mo', 'months'],
  ['y', 'years'],
] as const;
export type Unit = (typeof UNITS)[number][0];

export interface Lifetime {
  amount: string;
  unit: Unit;
}

/** The duration to send (`30min`), or null when the number is not a whole number from 1 up. */
export function lifetimeText({ amount, unit }: Lifetime): string | null {
  const n = amount.trim();
  return /^[1-9]\d{0,8}$/.test(n) ? `${n}${unit}` : null;
}
