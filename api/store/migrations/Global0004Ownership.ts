// Who manages a role or a policy: an owner mark (e.g. a Kubernetes resource's uid) so that a tool like the
// operator changes only what it made. Null for everything made before, and for what people make by hand.
import { Migration } from '@mikro-orm/migrations';

export class Global0004Ownership extends Migration {
  override name = 'Global0004Ownership';

  override up(): void {
    this.addSql(`alter table roles add column managedby text`);
    this.addSql(`alter table policies add column managedby text`);
  }
}
