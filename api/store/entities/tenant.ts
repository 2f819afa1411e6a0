// Entities that live in every tenant's own schema (`tenant_<id>`): users, their versions, the audit trail.
import { defineEntity, p } from '@mikro-orm/core';

export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  schema: '*',
  properties: {
    token: p.uuid().primary(),
    seq: p.bigint('number').autoincrement().unique(),
    // Sealed by the tokenizer, AAD (tenant, 'users', token).
    profile: p.blob().$type<Buffer>(),
    // HMACs of the normalised lookup values; null when the profile has no such field.
    loginIdx: p.blob().$type<Buffer>().nullable(),
    emailIdx: p.blob().$type<Buffer>().nullable(),
    phoneIdx: p.blob().$type<Buffer>().nullable(),
    customIdx: p.blob().$type<Buffer>().nullable(),
    version: p.integer(),
    created: p.bigint('number'),
    updated: p.bigint('number'),
    finaltime: p.bigint('number').nullable(),
    slidingtime: p.integer().nullable(),
    // min(finaltime, last use + slidingtime): the moment the record stops existing.
    expiresAt: p.bigint('number').nullable(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);

export const UserVersionSchema = defineEntity({
  name: 'UserVersion',
  tableName: 'user_versions',
  schema: '*',
  properties: {
    token: p.uuid().primary(),
    version: p.integer().primary(),
    // The profile ciphertext as it was; sealed for (tenant, 'users', token), so it moves here unchanged.
    profile: p.blob().$type<Buffer>(),
    optime: p.bigint('number'),
  },
  primaryKeys: ['token', 'version'],
});
export class UserVersion extends UserVersionSchema.class {}
UserVersionSchema.setClass(UserVersion);

export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  schema: '*',
  properties: {
    seq: p.bigint('number').primary(),
    uuid: p.uuid().unique(),
    when: p.bigint('number'),
    title: p.string(),
    status: p.string(),
    msg: p.text().nullable(),
    actor: p.string(),
    record: p.uuid().nullable().index(),
    mode: p.string().nullable(),
    app: p.string().nullable(),
    // Sealed JSON {identity, before, after, request_metadata}, AAD (tenant, 'audit_events', uuid).
    details: p.blob().$type<Buffer>().nullable(),
    // SHA-256 over the previous event's hash and this event's fields: the per-tenant chain.
    hash: p.blob().$type<Buffer>(),
  },
});
export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);

export const AuditHeadSchema = defineEntity({
  name: 'AuditHead',
  tableName: 'audit_head',
  schema: '*',
  properties: {
    id: p.integer().primary(),
    seq: p.bigint('number'),
    hash: p.blob().$type<Buffer>(),
  },
});
export class AuditHead extends AuditHeadSchema.class {}
AuditHeadSchema.setClass(AuditHead);
