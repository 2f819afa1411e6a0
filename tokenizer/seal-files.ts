// The seal count files beside a keyring: one per tokenizer process (replicas share a keyring directory, and each
// writes only its own file, so no count overwrites another), the old single file, and their sum per version.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writePrivateFile } from './keyring-file.js';

/** One file's worth of counts: seals per master version, and how many more may have gone unwritten. */
export interface SealRecord {
  seals: Map<number, number>;
  /** Seals per version a live or crashed writer may have made and not written yet; 0 once it closed cleanly. */
  unsaved: number;
}

/** What a process's own file holds on disk. */
interface SealFileDoc {
  format: typeof FORMAT;
  instance: string;
  /** Keyring.id: files of another keyring that once lived at this path are not counted for this one. */
  keyring: string;
  /** The writer stopped cleanly after its last write: the counts are exact. */
  closed: boolean;
  /** Seals per version the writer makes before it writes again: at most this many less one are missing. */
  unsaved: number;
  seals: Record<string, number>;
}

const FORMAT = 'strongroom-seals-v1';
const INSTANCE = /^[0-9a-f]{16}$/;
/** The margin the single-file counter (before per-instance files) used: it wrote every 2^20 seals. */
export const LEGACY_UNSAVED = 2 ** 20;

/** `<keyring.json>.seals` held every replica's counts, each overwriting the others'; still read, never written. */
export const legacySealFile = (keyringFile: string): string => `${keyringFile}.seals`;
export const sealFile = (keyringFile: string, instance: string): string => `${keyringFile}.seals.${instance}`;

/** Seals per version over all records: each record's counts plus, per version it names, what it may not have written. */
export function sumSeals(records: Iterable<SealRecord>): Map<number, number> {
  const sum = new Map<number, number>();
  for (const r of records) {
    for (const [v, n] of r.seals) sum.set(v, (sum.get(v) ?? 0) + n + r.unsaved);
  }
  return sum;
}

function parseCounts(raw: unknown): Map<number, number> | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const out = new Map<number, number>();
  for (const [v, n] of Object.entries(raw as Record<string, unknown>)) {
    const version = Number(v);
    if (!Number.isInteger(version) || version < 1 || typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return undefined;
    out.set(version, n);
  }
  return out;
}

export interface OtherSeals {
  records: SealRecord[];
  /** Files that are there and could not be read as counts (named by path, which holds no secret). */
  unreadable: string[];
}

/**
 * Every count file of this keyring except `ownInstance`'s, and the legacy file. A file of a process that stopped
 * long ago is counted like any other and never deleted: the seals it counts were made under keys that may still
 * be active, and dropping them would let a version go past its limit. They are small (one per process start).
 */
export function readOtherSeals(keyringFile: string, keyringId: string, ownInstance: string): OtherSeals {
  const records: SealRecord[] = [];
  const unreadable: string[] = [];
  const prefix = `${basename(keyringFile)}.seals.`;
  const dir = dirname(keyringFile);
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const instance = name.slice(prefix.length);
    // Temporary files of an atomic write end in .tmp and fail this test.
    if (!INSTANCE.test(instance) || instance === ownInstance) continue;
    const path = join(dir, name);
    let doc: Partial<SealFileDoc>;
    try {
      doc = JSON.parse(readFileSync(path, 'utf8')) as Partial<SealFileDoc>;
    } catch (err) {
      // Renamed away between the listing and the read cannot happen (files are only ever replaced): report it.
      unreadable.push(`${path} (${(err as Error).name})`);
      continue;
    }
    if (doc.keyring !== keyringId) continue;
    const seals = parseCounts(doc.seals);
    const unsaved = doc.unsaved;
    if (doc.format !== FORMAT || !seals || typeof unsaved !== 'number' || !Number.isSafeInteger(unsaved) || unsaved < 0) {
      unreadable.push(path);
      continue;
    }
    records.push({ seals, unsaved: doc.closed === true ? 0 : unsaved });
  }
  const legacy = readLegacy(legacySealFile(keyringFile));
  if (legacy === 'unreadable') unreadable.push(legacySealFile(keyringFile));
  else if (legacy) records.push(legacy);
  return { records, unreadable };
}

/** The pre-instance counts: a JSON map version → seals, written every 2^20 seals by whichever replica wrote last. */
function readLegacy(file: string): SealRecord | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const seals = parseCounts(JSON.parse(text));
    return seals ? { seals, unsaved: LEGACY_UNSAVED } : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** Writes this process's own counts (a temporary file renamed into place: a reader sees the old or the new). */
export function writeOwnSeals(
  keyringFile: string,
  doc: { instance: string; keyring: string; closed: boolean; unsaved: number; seals: Map<number, number> },
): void {
  const body: SealFileDoc = {
    format: FORMAT,
    instance: doc.instance,
    keyring: doc.keyring,
    closed: doc.closed,
    unsaved: doc.unsaved,
    seals: Object.fromEntries([...doc.seals].map(([v, n]) => [String(v), n])),
  };
  writePrivateFile(sealFile(keyringFile, doc.instance), `${JSON.stringify(body)}\n`, 'replace');
}
