// Roles and policies: the main tenant defines them; role xtokens of any tenant are judged by them.
import { GlobalStores } from '../store/stores.js';
import { LRUCache } from 'lru-cache';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '../store/database.js';
import { RoleStore, type PolicyRow, type RoleRow } from '../store/roles.js';
import { badRequest, notFound, Messages } from '../errors.js';
import { parsePolicy, type PolicyStatement } from './policy.js';
import { conflictOnUnique } from '../store/errors.js';


/** A policy document as PolicyCreate and PolicyUpdate accept it, or a 400 naming what is wrong. */
export function checkedPolicy(doc: unknown): unknown {
  const p = parsePolicy(doc);
  if ('reason' in p) throw badRequest(`Invalid API request parameter: policy: ${p.reason}`);
  return doc;
}

export class Roles {
  // Short TTL, like credentials: a changed policy applies on every replica within seconds.
  private readonly statements = new LRUCache<number, { rolename: string; statements: PolicyStatement[] }>({ max: 10_000, ttl: 5_000 });

  constructor(private readonly db: Database) {}

  private store(em: EntityManager = this.db.global()): RoleStore {
    return new GlobalStores(em).roles;
  }

  /** `managedby` is the owner mark; an empty one is no mark. */
  async createRole(em: EntityManager, name: string, desc: string, managedby: string | undefined, now: number): Promise<number> {
    return await conflictOnUnique(Messages.duplicateRole, () => this.store(em).createRole(name, desc, managedby || null, now));
  }

  async role(em: EntityManager, by: { id?: number | undefined; name?: string | undefined }): Promise<RoleRow> {
    const r = await this.store(em).role(by);
    if (!r) throw notFound(Messages.roleNotFound);
    return r;
  }

  /** Absent fields stay; `managedby: ''` removes the owner mark. */
  async updateRole(em: EntityManager, id: number, set: { name?: string | undefined; desc?: string | undefined; managedby?: string | undefined }): Promise<void> {
    await conflictOnUnique(Messages.duplicateRole, () => this.store(em).updateRole(id, set));
    this.statements.clear();
  }

  async createPolicy(em: EntityManager, name: string, desc: string, doc: unknown, managedby: string | undefined, now: number): Promise<number> {
    return await conflictOnUnique(Messages.duplicatePolicy, () => this.store(em).createPolicy(name, desc, checkedPolicy(doc), managedby || null, now));
  }

  async policy(em: EntityManager, by: { id?: number | undefined; name?: string | undefined }): Promise<PolicyRow> {
    const p = await this.store(em).policy(by);
    if (!p) throw notFound(Messages.policyNotFound);
    return p;
  }

  async updatePolicy(
    em: EntityManager,
    id: number,
    set: { name?: string | undefined; desc?: string | undefined; document?: unknown; managedby?: string | undefined },
  ): Promise<void> {
    if (set.document !== undefined) checkedPolicy(set.document);
    await conflictOnUnique(Messages.duplicatePolicy, () => this.store(em).updatePolicy(id, set));
    this.statements.clear();
  }

  async link(em: EntityManager, roleId: number, policyId: number): Promise<void> {
    await this.store(em).link(roleId, policyId);
    this.statements.clear();
  }

  async unlink(em: EntityManager, roleId: number, policyId: number): Promise<void> {
    await this.store(em).unlink(roleId, policyId);
    this.statements.clear();
  }

  /** The role goes with its links and xtokens; group memberships that named it keep no role. */
  async deleteRole(em: EntityManager, roleId: number): Promise<void> {
    await this.store(em).deleteRole(roleId);
    this.statements.clear();
  }

  async deletePolicy(em: EntityManager, policyId: number): Promise<void> {
    await this.store(em).deletePolicy(policyId);
    this.statements.clear();
  }

  /** The role's name and the statements of its policies; null when the role is gone. */
  async statementsOf(roleId: number): Promise<{ rolename: string; statements: PolicyStatement[] } | null> {
    const hit = this.statements.get(roleId);
    if (hit) return hit;
    const found = await this.store().documentsOf(roleId);
    if (!found) return null;
    const statements = found.documents.flatMap((d) => {
      const p = parsePolicy(d);
      return 'statements' in p ? p.statements : [];
    });
    const value = { rolename: found.rolename, statements };
    this.statements.set(roleId, value);
    return value;
  }
}
