// The auditor's check on its own, over a trail in memory: signatures, the checkpoints' order and the digest chain.
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyTrail, type Query } from '../../../api/audit-verify.js';
import { canonical } from '../../../api/vault/audit/trail.js';
import { auditDigest, checkpointLine, checkpointMessage, type CheckpointFields } from '../../../proto/audit-checkpoint.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** A tenant's trail of `n` events with honest digests and random links, and a query that serves it. */
function trailOf(n: number) {
  const rows: Record<string, unknown>[] = [];
  let digest: Buffer = Buffer.alloc(0);
  for (let seq = 1; seq <= n; seq++) {
    const e = { seq, uuid: randomUUID(), when: 1_700_000_000 + seq, title: 'UserGet', status: 'ok' as const, msg: null, actor: 'root:x', record: null, mode: null, app: null, details: null };
    digest = auditDigest(digest, seq, canonical(e));
    rows.push({ ...e, when: String(e.when), hash: randomBytes(32), digest });
  }
  const last = rows.at(-1)!;
  const query: Query = async (sql, params) => {
    if (sql.includes('audit_head')) return [{ seq: String(n), hash: last.hash, digest: last.digest }];
    const [after, limit] = params as [number, number];
    return rows.filter((r) => (r.seq as number) > after).slice(0, limit);
  };
  const checkpoint = (seq: number, time: number, key = privateKey) => {
    const r = rows[seq - 1]!;
    const fields: CheckpointFields = { tenant: 7, seq, link: r.hash as Buffer, digest: r.digest as Buffer, time };
    return checkpointLine(fields, sign(null, checkpointMessage(fields), key));
  };
  return { rows, query, checkpoint };
}

describe('verifyTrail', () => {
  it('proves the trail up to the newest checkpoint and ignores badly signed ones', async () => {
    const t = trailOf(30);
    const forged = t.checkpoint(29, 200, generateKeyPairSync('ed25519').privateKey);
    const report = await verifyTrail(t.query, 7, [t.checkpoint(10, 100), t.checkpoint(20, 160), forged], pem);
    expect(report).toMatchObject({ result: 'intact', events: 30, head: 30, provenUpTo: 20, checkpoints: { valid: 2, badSignature: 1 } });
  });

  it('finds an edited event by its digest', async () => {
    const t = trailOf(30);
    t.rows[4]!.title = 'Forged';
    expect((await verifyTrail(t.query, 7, [t.checkpoint(20, 100)], pem)).broken).toEqual({ seq: 5, why: 'link' });
  });

  it('finds checkpoints that go back, beyond the clocks\' leeway', async () => {
    const t = trailOf(30);
    expect((await verifyTrail(t.query, 7, [t.checkpoint(20, 100), t.checkpoint(10, 130)], pem)).result).toBe('intact');
    expect((await verifyTrail(t.query, 7, [t.checkpoint(20, 100), t.checkpoint(10, 200)], pem)).broken).toEqual({ seq: 10, why: 'checkpoint order' });
  });

  it('finds a trail shorter than a checkpoint', async () => {
    const t = trailOf(30);
    const beyond = t.checkpoint(30, 100);
    t.rows.splice(25);
    const short = await verifyTrail(async (sql, params) => (sql.includes('audit_head') ? [{ seq: '25', hash: t.rows[24]!.hash, digest: t.rows[24]!.digest }] : t.query(sql, params)), 7, [beyond], pem);
    expect(short.broken).toEqual({ seq: 26, why: 'checkpoint mismatch' });
  });
});
