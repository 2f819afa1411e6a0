// SQL for vault-wide settings (key and value).
import { GlobalTables } from './global-tables.js';

export class SettingStore extends GlobalTables {
  async set(key: string, value: string): Promise<void> {
    await this.sql(`insert into ${this.g}.settings (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value`, [key, value]);
  }
}
