// Entities of the global schema `strongroom`: tenants, credentials, unlock UUIDs, settings.
import { defineEntity, p } from '@mikro-orm/core';

export const GLOBAL_SCHEMA = 'strongroom';

export const TenantSchema = defineEntity({
  name: 'Tenant',
  tableName: 'tenants',
  schema: GLOBAL_SCHEMA,
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().unique(),
    org: p.string(),
    email: p.string().nullable(),
    created: p.bigint('number'),
  },
});
export class Tenant extends TenantSchema.class {}
TenantSchema.setClass(Tenant);

export const CredentialSchema = defineEntity({
  name: 'Credential',
  tableName: 'credentials',
  schema: GLOBAL_SCHEMA,
  properties: {
    id: p.uuid().primary(),
    // SHA-256 of the token: the token itself is shown once and never stored.
    hash: p.string().unique(),
    kind: p.string(),
    tenantId: p.integer(),
    roleId: p.integer().nullable(),
    userToken: p.uuid().nullable(),
    expiresAt: p.bigint('number').nullable(),
    created: p.bigint('number'),
  },
});
export class Credential extends CredentialSchema.class {}
CredentialSchema.setClass(Credential);

export const UnlockSchema = defineEntity({
  name: 'Unlock',
  tableName: 'unlocks',
  schema: GLOBAL_SCHEMA,
  properties: {
    uuid: p.uuid().primary(),
    credentialId: p.uuid(),
    tenantId: p.integer(),
    expiresAt: p.bigint('number'),
  },
});
export class Unlock extends UnlockSchema.class {}
UnlockSchema.setClass(Unlock);

export const SettingSchema = defineEntity({
  name: 'Setting',
  tableName: 'settings',
  schema: GLOBAL_SCHEMA,
  properties: {
    key: p.string().primary(),
    value: p.text(),
  },
});
export class Setting extends SettingSchema.class {}
SettingSchema.setClass(Setting);
