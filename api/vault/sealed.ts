// JSON values sealed through the tokenizer, bound by their AAD to a table and a row so a blob moved elsewhere
// does not open. Small calls from concurrent requests travel together (the client coalesces them).
import type { TokenizerClient } from '../tokenizer-client.js';
import { documentBytes } from './documents.js';

export class Sealer {
  constructor(
    private readonly tokenizer: TokenizerClient,
    /** The largest document sealed, as JSON (STRONGROOM_PROFILE_MAX_BYTES). */
    private readonly maxBytes: number,
  ) {}

  /** Seals a document; one larger than the bound is a 400 naming `field`. */
  async seal(tenantId: number, table: string, rowId: string, value: unknown, field = 'document'): Promise<Buffer> {
    const { sealed } = await this.tokenizer.run(tenantId, { seal: [{ table, rowId, plaintext: documentBytes(field, value, this.maxBytes) }] });
    return sealed[0]!;
  }

  async open<T>(tenantId: number, table: string, rowId: string, blob: Buffer): Promise<T> {
    const [value] = await this.openMany<T>(tenantId, table, [{ rowId, blob }]);
    return value!;
  }

  async openMany<T>(tenantId: number, table: string, items: { rowId: string; blob: Buffer }[]): Promise<T[]> {
    return (await this.openBytes(tenantId, table, items)).map((b) => JSON.parse(b.toString('utf8')) as T);
  }

  /** The plaintexts as stored (JSON text), for callers that hash them. */
  async openBytes(tenantId: number, table: string, items: { rowId: string; blob: Buffer }[]): Promise<Buffer[]> {
    if (!items.length) return [];
    const { opened } = await this.tokenizer.run(tenantId, { open: items.map((i) => ({ table, rowId: i.rowId, ciphertext: i.blob })) });
    return opened;
  }

  /** A keyed hash (the tenant's dedupe key): equal inputs match without the value being stored or guessable. */
  async fingerprint(tenantId: number, value: string): Promise<string> {
    const { hash } = await this.tokenizer.run(tenantId, { hash: [{ kind: 'DEDUPE', value }] });
    return hash[0]!.toString('base64url');
  }
}
