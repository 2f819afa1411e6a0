// A bulk create's unique indexes: which login, email, phone and custom hashes are taken, by people already stored
// or by earlier records of the same request, so that a duplicate is refused by itself and never fails the batch.
import { INDEX_COLUMN } from '../store/users.js';
import { INDEX_FIELDS, type IndexMode } from './identities.js';

/** A person's lookup hashes, by column; null where the profile has no such field. */
export type Indexes = Record<`${IndexMode}Idx`, Buffer | null>;

export class TakenIndexes {
  private readonly taken: Record<IndexMode, Set<string>> = { login: new Set(), email: new Set(), phone: new Set(), custom: new Set() };

  /** The hashes of these records, by mode: what to look for among the people stored. */
  static wanted(records: readonly Indexes[]): Partial<Record<IndexMode, Buffer[]>> {
    const wanted: Partial<Record<IndexMode, Buffer[]>> = {};
    for (const indexes of records) {
      for (const mode of INDEX_FIELDS) {
        const h = indexes[INDEX_COLUMN[mode]];
        if (h) (wanted[mode] ??= []).push(h);
      }
    }
    return wanted;
  }

  /** Stored people's hashes, taken. */
  markRows(rows: readonly Indexes[]): void {
    for (const row of rows) this.take(row);
  }

  /** The first index of the record that is taken already, if any. */
  duplicateOf(indexes: Indexes): IndexMode | undefined {
    return INDEX_FIELDS.find((mode) => {
      const h = indexes[INDEX_COLUMN[mode]];
      return h !== null && this.taken[mode].has(h.toString('base64'));
    });
  }

  take(indexes: Indexes): void {
    for (const mode of INDEX_FIELDS) {
      const h = indexes[INDEX_COLUMN[mode]];
      if (h) this.taken[mode].add(h.toString('base64'));
    }
  }
}
