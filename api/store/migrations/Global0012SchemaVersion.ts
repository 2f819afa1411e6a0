// The schema's version and the oldest version of the code that may run against it (api/store/schema-version.ts):
// one row, raised by each release as it migrates, read by every replica before it does.
import { Migration } from '@mikro-orm/migrations';

export class Global0012SchemaVersion extends Migration {
  override name = 'Global0012SchemaVersion';

  override up(): void {
    this.addSql(`create table schema_version (
      id integer primary key check (id = 1),
      version integer not null,
      floor integer not null,
      updated bigint not null)`);
  }
}
