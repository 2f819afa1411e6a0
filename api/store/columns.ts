// Typed reads of one column of a row as pg returns it (bigints arrive as strings): what row mappers are built from.
export type Raw = Record<string, unknown>;

export const text = (r: Raw, c: string): string => r[c] as string;
export const textOrNull = (r: Raw, c: string): string | null => (r[c] as string | null | undefined) ?? null;
export const num = (r: Raw, c: string): number => Number(r[c]);
export const bool = (r: Raw, c: string): boolean => r[c] === true;
export const bytes = (r: Raw, c: string): Buffer => r[c] as Buffer;
export const bytesOrNull = (r: Raw, c: string): Buffer | null => (r[c] as Buffer | null | undefined) ?? null;
export const texts = (r: Raw, c: string): string[] => (r[c] as string[] | null | undefined) ?? [];
export const textsOrNull = (r: Raw, c: string): string[] | null => (r[c] as string[] | null | undefined) ?? null;
