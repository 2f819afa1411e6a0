// JSON values sealed through the tokenizer, bound by their AAD to a table and a row so a blob moved elsewhere
// does not open. A person's values are sealed under their own data key (`key`), bound to them as well.
// Small calls from concurrent requests travel together (the client coalesces them).
import { TokenizerRejectedError, type PersonKey, type TokenizerClient } from '../tokenizer-client.js';
import { AlteredRecordError, Messages } from '../errors.js';
import { documentBytes } from './documents.js';
import type { SubjectKeys } from './subject-keys.js';
import type { Scope } from './scope.js';

/** Where a document is sealed (its AAD's table and row), and the input field a 400 names when it is too large. */
export interface DocumentPlace {
  table: string;
  rowId: string;
  field?: string;
}

export class Sealer {
  constructor(
    private readonly tokenizer: TokenizerClient,
    /** The largest document sealed, as JSON (STRONGROOM_PROFILE_MAX_BYTES). */
    private readonly maxBytes: number,
    readonly keys: SubjectKeys,
  ) {}

  /** Seals a document; one larger than the bound is a 400 naming `place.field`. Without `key`, under the tenant's key. */
  async seal(tenantId: number, { table, rowId, field = 'document' }: DocumentPlace, value: unknown, key?: PersonKey): Promise<Buffer> {
    const { sealed } = await this.tokenizer.run(tenantId, { seal: [{ table, rowId, plaintext: documentBytes(field, value, this.maxBytes), key }] });
    return sealed[0]!;
  }

  /** Seals a document of the person `token` under their key; 404 `User not found` once they are erased. */
  async sealFor(scope: Scope, token: string, place: DocumentPlace, value: unknown): Promise<Buffer> {
    return this.seal(scope.tenantId, place, value, await this.keys.key(scope, token));
  }

  async open<T>(tenantId: number, table: string, rowId: string, blob: Buffer, key?: PersonKey): Promise<T> {
    const [value] = await this.openMany<T>(tenantId, table, [{ rowId, blob }], key);
    return value!;
  }

  async openFor<T>(scope: Scope, token: string, table: string, rowId: string, blob: Buffer): Promise<T> {
    return this.open<T>(scope.tenantId, table, rowId, blob, await this.keys.key(scope, token));
  }

  async openMany<T>(tenantId: number, table: string, items: { rowId: string; blob: Buffer }[], key?: PersonKey): Promise<T[]> {
    return (await this.openBytes(tenantId, table, items, key)).map((b) => JSON.parse(b.toString('utf8')) as T);
  }

  /** The plaintexts as stored (JSON text), for callers that hash them. */
  async openBytes(tenantId: number, table: string, items: { rowId: string; blob: Buffer }[], key?: PersonKey): Promise<Buffer[]> {
    if (!items.length) return [];
    const { opened } = await altered(this.tokenizer.run(tenantId, { open: items.map((i) => ({ table, rowId: i.rowId, ciphertext: i.blob, key })) }));
    return opened;
  }

  /** Documents of several people, each opened under its own key, in one tokenizer call. */
  async openEach<T>(tenantId: number, table: string, items: { rowId: string; blob: Buffer; key: PersonKey }[]): Promise<T[]> {
    if (!items.length) return [];
    const { opened } = await altered(this.tokenizer.run(tenantId, { open: items.map((i) => ({ table, rowId: i.rowId, ciphertext: i.blob, key: i.key })) }));
    return opened.map((b) => JSON.parse(b.toString('utf8')) as T);
  }

  /** A keyed hash (the tenant's dedupe key): equal inputs match without the value being stored or guessable. */
  async fingerprint(tenantId: number, value: string): Promise<string> {
    const { hash } = await this.tokenizer.run(tenantId, { hash: [{ kind: 'DEDUPE', value }] });
    return hash[0]!.toString('base64url');
  }
}

/**
 * An opening the tokenizer refuses: the ciphertext is not what its row, person, version or type says (swapped, cut
 * or renumbered by a database writer), answered 409 `recordAltered` rather than a 500 or someone else's data.
 */
export function altered<T>(opening: Promise<T>): Promise<T> {
  return opening.catch((err: unknown) => Promise.reject(err instanceof TokenizerRejectedError ? new AlteredRecordError(Messages.recordAltered) : err));
}
