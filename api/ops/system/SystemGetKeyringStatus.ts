// POST /v2/SystemGetKeyringStatus: the master key versions (never a key), which is active, AES-GCM seals per
// version, how far the persons' keys are rewrapped under the active one, the audit checkpoints' public key, and the
// progress of an upgrade from a legacy database.
// Main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';

export const SystemGetKeyringStatus = defineOp({
  name: 'SystemGetKeyringStatus',
  summary: 'The master key versions (never a key), seals per version, rewrap progress and the checkpoint public key',
  output: z.object({ keyringid: z.string(), auditpublickey: z.string().meta({ description: 'The Ed25519 key (SPKI PEM) that signs audit checkpoints.' }), versions: z.array(z.number().int()), active: z.number().int(), seals: z.record(z.string(), z.number()).meta({ description: 'AES-GCM seals per master key version.' }), personkeys: z.record(z.string(), z.number()), rotation: z.object({ done: z.number().int(), total: z.number().int(), percent: z.number().int() }), versionsinuse: z.array(z.number().int()), legacy: z.array(z.unknown()), tenantkeks: z.array(z.object({ tenantid: z.number().int(), kek: z.string(), state: z.enum(['up', 'revoked', 'unavailable']) })).meta({ description: 'Each tenant with a key-encryption key of its own: its HSM object and its state.' }) }),
  example: {},
  ...mainTenantOp('own'),
  servedDuringUpgrade: true,
  input: z.object({}),
  async run({ ctx }) {
    const info = await ctx.services.custody.status();
    const progress = await ctx.services.rewrapper.progress();
    const inUse = Object.entries(progress.byVersion)
      .filter(([, n]) => n > 0)
      .map(([v]) => Number(v));
    return {
      keyringid: info.keyring_id,
      // The Ed25519 key (SPKI PEM) that signs audit checkpoints: what `npm run audit:verify` checks them with.
      auditpublickey: info.audit_public_key,
      versions: info.versions,
      active: info.active,
      seals: Object.fromEntries(Object.entries(info.seals).map(([v, n]) => [v, Number(n)])),
      personkeys: progress.byVersion,
      rotation: {
        done: progress.done,
        total: progress.total,
        percent: progress.total ? Math.floor((progress.done * 100) / progress.total) : 100,
      },
      // Versions still wrapping some person's key; tenant-key records (tokens, audit details without a person)
      // may still name older versions too, so no version is removed from the keyring here.
      versionsinuse: inUse,
      // The upgrade from a database sealed before per-person keys, per tenant that held such data (api/vault/jobs/legacy.ts).
      legacy: await ctx.services.legacy.status(),
      // Tenants with their own key-encryption key (an HSM object): its label and state (up, revoked, unavailable).
      tenantkeks: await ctx.services.tenantKeks.status(),
    };
  },
});
