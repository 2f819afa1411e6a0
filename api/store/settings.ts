// SQL for vault-wide settings (key and value).
import { GlobalTables } from './global-tables.js';

export class SettingStore extends GlobalTables {
  async set(key: string, value: string): Promise<void> {
    await this.sql(`insert into ${this.g}.settings (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value`, [key, value]);
  }

  async get(key: string): Promise<string | null> {
    const [r] = await this.sql<{ value: string }>(`select value from ${this.g}.settings where key = $1`, [key]);
    return r?.value ?? null;
  }

  /** Sets the keys that are not set yet (a concurrent first writer wins), in one statement. */
  async setIfAbsent(values: Record<string, string>): Promise<void> {
    const entries = Object.entries(values);
    await this.sql(`insert into ${this.g}.settings (key, value) select * from unnest($1::text[], $2::text[]) on conflict (key) do nothing`, [
      entries.map(([k]) => k),
      entries.map(([, v]) => v),
    ]);
  }
}
