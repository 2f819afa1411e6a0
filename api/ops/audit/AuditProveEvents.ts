// POST /v2/AuditProveEvents (beyond the contract): a proof that a person's audit events, oldest first after `after`,
// belong to the tenant's trail up to signed checkpoints, for a third party to check offline with the checkpoint
// key's public half (`npm run audit:verify -- --proof <file>`). Everyone else's events appear only as hashes. The
// person's own login xtoken may ask for it, as for their access log.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { ADA } from '../examples.js';
import { Limit, UserRef, pageOf } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { proveEvents } from '../../vault/audit/prover.js';

// A JSON number, nothing coerced into one (a new field: no client sends it as text).
const Seq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const AuditProveEvents = defineOp({
  name: 'AuditProveEvents',
  summary: "A proof, checkable offline, that a user's audit events belong to the signed trail",
  output: z.object({
    proof: z.object({
      type: z.literal('strongroom.audit.proof'),
      v: z.literal(1),
      tenant: z.number().int(),
      record: z.string(),
      segments: z.array(z.record(z.string(), z.unknown())).meta({
        description: 'From one of the user’s events to the next signed checkpoint: the digest before it, one leaf per event up to the checkpoint (base64), the user’s events (their sealed details as their SHA-256), the checkpoint line and its timestamp token.',
      }),
    }),
    unproven: z.array(z.object({ seq: z.number().int(), why: z.string() })).meta({ description: 'The user’s events in this page that no proof covers yet, with why (e.g. not checkpointed yet).' }),
    publickey: z.string().meta({ description: 'The checkpoint key (SPKI PEM) as this vault states it: a verifier takes it from a source it trusts (the operator’s published key), and may compare.' }),
    next: z.number().int().nullable().meta({ description: 'The `after` of the next page; null when this page holds the user’s last event.' }),
  }),
  example: { ...ADA, after: 0, limit: 100 },
  ...personOp('read', ['audit'], 'own'),
  input: z.object({
    ...UserRef,
    after: Seq.default(0).meta({ description: 'Only events after this sequence number (the `next` of the page before); 0: from the first.' }),
    limit: Limit,
  }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    const { limit } = pageOf({ offset: 0, limit: input.limit }, ctx.services.config.limitCap);
    const { proof, unproven, next } = await proveEvents(ctx.stores, ctx.stores.tenantId, row.token, input.after, limit);
    return { proof, unproven, publickey: await ctx.services.auditCheckpoints.publicKey(), next };
  },
});
