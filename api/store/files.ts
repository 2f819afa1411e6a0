// SQL for the file metadata of one tenant schema, and for the trash of objects whose rows are gone.
import { TenantTables } from './tenant-tables.js';

export interface FileRow {
  fileuuid: string;
  userToken: string;
  objectKey: string;
  nameSealed: Buffer;
  nameHash: Buffer;
  mimetype: string;
  size: number;
  contentHash: Buffer;
  tags: string[];
  created: number;
  finaltime: number | null;
  slidingtime: number | null;
  expiresAt: number | null;
}

const COLUMNS = `fileuuid, user_token, object_key, name_sealed, name_hash, mimetype, size, content_hash, tags, created, finaltime,
  slidingtime, expires_at`;

/** Live rows only: an expired file reads as absent before the sweeper removes it. */
const live = (n: number) => `(expires_at is null or expires_at > $${n})`;

const num = (v: unknown) => (v == null ? null : Number(v));

function toRow(r: Record<string, unknown>): FileRow {
  return {
    fileuuid: r.fileuuid as string,
    userToken: r.user_token as string,
    objectKey: r.object_key as string,
    nameSealed: r.name_sealed as Buffer,
    nameHash: r.name_hash as Buffer,
    mimetype: r.mimetype as string,
    size: Number(r.size),
    contentHash: r.content_hash as Buffer,
    tags: (r.tags as string[] | null) ?? [],
    created: Number(r.created),
    finaltime: num(r.finaltime),
    slidingtime: num(r.slidingtime),
    expiresAt: num(r.expires_at),
  };
}

export class FileStore extends TenantTables {
  private async rows(sql: string, params: unknown[]): Promise<FileRow[]> {
    return (await this.sql(sql, params)).map(toRow);
  }

  async byUuid(token: string, fileuuid: string, now: number): Promise<FileRow | null> {
    const [row] = await this.rows(`select ${COLUMNS} from ${this.t}.files where fileuuid = $1 and user_token = $2 and ${live(3)}`, [fileuuid, token, now]);
    return row ?? null;
  }

  /** The newest live file of the user with this name hash. */
  async newestByName(token: string, nameHash: Buffer, now: number): Promise<FileRow | null> {
    const [row] = await this.rows(
      `select ${COLUMNS} from ${this.t}.files where user_token = $1 and name_hash = $2 and ${live(3)} order by created desc, fileuuid desc limit 1`,
      [token, nameHash, now],
    );
    return row ?? null;
  }

  /** The user's file with this content, live or not yet swept. */
  async byContent(token: string, contentHash: Buffer): Promise<FileRow | null> {
    const [row] = await this.rows(`select ${COLUMNS} from ${this.t}.files where user_token = $1 and content_hash = $2`, [token, contentHash]);
    return row ?? null;
  }

  async insert(row: FileRow): Promise<void> {
    await this.sql(`insert into ${this.t}.files (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        row.fileuuid,
        row.userToken,
        row.objectKey,
        row.nameSealed,
        row.nameHash,
        row.mimetype,
        row.size,
        row.contentHash,
        row.tags,
        row.created,
        row.finaltime,
        row.slidingtime,
        row.expiresAt,
      ],
    );
  }

  /** Removes a live file of the user; false when there is none. Its object goes to the trash (trigger). */
  async remove(token: string, fileuuid: string, now: number): Promise<boolean> {
    const rows = await this.sql(`delete from ${this.t}.files where fileuuid = $1 and user_token = $2 and ${live(3)} returning fileuuid`, [
      fileuuid,
      token,
      now,
    ]);
    return rows.length > 0;
  }

  /** Removes a row whatever its expiry (an expired copy that a new upload of the same content replaces). */
  async removeRow(fileuuid: string): Promise<void> {
    await this.sql(`delete from ${this.t}.files where fileuuid = $1`, [fileuuid]);
  }

  async setTags(token: string, fileuuid: string, tags: string[], now: number): Promise<boolean> {
    const rows = await this.sql(`update ${this.t}.files set tags = $3 where fileuuid = $1 and user_token = $2 and ${live(4)} returning fileuuid`, [
      fileuuid,
      token,
      tags,
      now,
    ]);
    return rows.length > 0;
  }

  async touch(fileuuid: string, expiresAt: number): Promise<void> {
    await this.sql(`update ${this.t}.files set expires_at = $2 where fileuuid = $1`, [fileuuid, expiresAt]);
  }

  /** The user's live files, oldest first; only those carrying `tag` when one is given. */
  async ofUser(token: string, tag: string | undefined, now: number): Promise<FileRow[]> {
    return tag === undefined
      ? this.rows(`select ${COLUMNS} from ${this.t}.files where user_token = $1 and ${live(2)} order by created, fileuuid`, [token, now])
      : this.rows(`select ${COLUMNS} from ${this.t}.files where user_token = $1 and tags @> array[$3]::text[] and ${live(2)} order by created, fileuuid`, [
          token,
          now,
          tag,
        ]);
  }

  /** A page of the tenant's live files carrying `tag`, oldest first, with the count of all of them. */
  async pageByTag(tag: string, offset: number, limit: number, now: number): Promise<{ total: number; rows: FileRow[] }> {
    const where = `tags @> array[$1]::text[] and ${live(2)}`;
    const [count] = await this.sql<{ n: string }>(`select count(*) as n from ${this.t}.files where ${where}`, [tag, now]);
    const rows = await this.rows(`select ${COLUMNS} from ${this.t}.files where ${where} order by created, fileuuid offset $3 limit $4`, [tag, now, offset, limit]);
    return { total: Number(count?.n ?? 0), rows };
  }

  /** Removes expired files, a bounded number at a time (their objects go to the trash); returns how many went. */
  async sweep(now: number, max: number): Promise<number> {
    const rows = await this.sql(`delete from ${this.t}.files where fileuuid in (select fileuuid from ${this.t}.files where expires_at <= $1 limit $2) returning fileuuid`,
      [now, max],
    );
    return rows.length;
  }

  /** Keys of objects whose rows are gone, committed and waiting to be deleted from the blob store. */
  async trashed(max: number): Promise<string[]> {
    return (await this.sql<{ object_key: string }>(`select object_key from ${this.t}.file_trash order by since limit $1`, [max])).map(
      (r) => r.object_key,
    );
  }

  /** Forgets trashed keys once their objects are deleted. */
  async forget(keys: string[]): Promise<void> {
    if (keys.length) await this.sql(`delete from ${this.t}.file_trash where object_key = any($1::text[])`, [keys]);
  }

  /** Which of these keys a file row still names. */
  async referenced(keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = await this.sql<{ object_key: string }>(`select object_key from ${this.t}.files where object_key = any($1::text[])`, [keys]);
    return new Set(rows.map((r) => r.object_key));
  }
}
