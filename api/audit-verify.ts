// The auditor's command (`npm run audit:verify`): checks a tenant's stored audit trail against signed checkpoints
// with nothing but the database, the checkpoints and the public key. It trusts neither the api nor the tokenizer
// and holds no key, so it cannot recompute the keyed links; it recomputes the public digest chain from the stored
// events, and so proves that nothing up to the newest checkpoint was rewritten, removed or inserted since.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { keyFingerprint, verifyProof } from './vault/audit/proof.js';
import pg from 'pg';
import { HeldSql } from './store/sql.js';
import { eventsAfter, storedHead, tenantIdOf as storedTenantId, type Query } from './store/auditor.js';
import { followingDigest, checkpointKey, checkpointSigned, parseCheckpoint, type CheckpointLine } from '../proto/audit-checkpoint.js';
import { canonical } from './vault/audit/trail.js';
import type { AuditEventRow } from './store/audit.js';
import { S3BlobStore } from './store/blobs/s3.js';
import { readBucketCheckpoints } from './vault/audit/checkpoint-targets.js';
import { readCopy, verifyCopy } from './vault/audit/copy-verification.js';

export type { Query } from './store/auditor.js';

export interface TrailReport {
  tenant: number;
  result: 'intact' | 'broken';
  /** Events read from the database, and the head it stores. */
  events: number;
  head: number;
  checkpoints: { valid: number; badSignature: number; newest: { seq: number; time: number } | null };
  /** Everything up to here is proven not rewritten by a signed checkpoint (0: nothing is). */
  provenUpTo: number;
  broken?: { seq: number; why: 'gap' | 'link' | 'checkpoint mismatch' | 'checkpoint order' };
}

// Events read per statement.
const PAGE = 10_000;
const CLOCK_SKEW_SECONDS = 60;

/** Every checkpoint line in a file, or in every file of a directory (log files too: other lines are skipped). */
export function readCheckpoints(path: string): CheckpointLine[] {
  const files = statSync(path).isDirectory() ? readdirSync(path).sort().map((f) => join(path, f)).filter((f) => statSync(f).isFile()) : [path];
  return files.flatMap((f) => readFileSync(f, 'utf8').split('\n').map(parseCheckpoint).filter((c): c is CheckpointLine => c !== null));
}

/** How to reach a bucket given as `s3://bucket/prefix`: the SDK's own provider chain finds the credentials. */
export interface BucketAccess {
  endpoint?: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** Explicit keys; when absent the SDK's provider chain finds them (AWS_ACCESS_KEY_ID…, AWS_PROFILE, web identity). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** `s3://bucket/prefix` split; null for anything else (a directory or a file). */
export function parseBucketUrl(source: string): { bucket: string; prefix: string } | null {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(source);
  return m ? { bucket: m[1]!, prefix: m[2]! } : null;
}

/** The tenant's checkpoints from a directory, a file, or a bucket (`s3://bucket/prefix`, as the vault writes them). */
export async function readCheckpointsFrom(source: string, tenantId: number, access: BucketAccess): Promise<CheckpointLine[]> {
  const url = parseBucketUrl(source);
  if (!url) return readCheckpoints(source);
  const store = new S3BlobStore({ bucket: url.bucket, region: access.region, endpoint: access.endpoint, forcePathStyle: access.forcePathStyle, credentials: access.credentials });
  try {
    return await readBucketCheckpoints(store, url.prefix, tenantId);
  } finally {
    store.close();
  }
}

/** The tenant's id, from an id or a name. */
export async function tenantIdOf(query: Query, tenant: string): Promise<number> {
  const id = await storedTenantId(query, tenant);
  if (id === null) throw new Error(`no tenant ${tenant}`);
  return id;
}

export async function verifyTrail(query: Query, tenantId: number, lines: CheckpointLine[], publicKeyPem: string): Promise<TrailReport> {
  const key = checkpointKey(publicKeyPem);
  const mine = lines.filter((c) => c.tenant === tenantId);
  const valid = mine.filter((c) => checkpointSigned(key, c));
  // By the tokenizer's time: a head never goes back, and one sequence number has one link.
  valid.sort((a, b) => a.time - b.time || a.seq - b.seq);
  const bySeq = new Map<number, { link: Buffer; digest: Buffer }>();
  const newest = valid.reduce<CheckpointLine | null>((n, c) => (!n || c.seq > n.seq ? c : n), null);
  const report: TrailReport = {
    tenant: tenantId,
    result: 'intact',
    events: 0,
    head: 0,
    checkpoints: { valid: valid.length, badSignature: mine.length - valid.length, newest: newest && { seq: newest.seq, time: newest.time } },
    provenUpTo: 0,
  };
  const broken = (seq: number, why: NonNullable<TrailReport['broken']>['why']): TrailReport => ({ ...report, result: 'broken', broken: { seq, why } });
  let highest = 0;
  // Replicas' tokenizers may disagree by a few seconds: only a checkpoint signed a minute after a higher one counts
  // as the head going back.
  let older = 0;
  let olderMax = 0;
  for (const c of valid) {
    const signed = { link: Buffer.from(c.link, 'hex'), digest: Buffer.from(c.digest, 'hex') };
    const seen = bySeq.get(c.seq);
    if (seen && !(seen.link.equals(signed.link) && seen.digest.equals(signed.digest))) return broken(c.seq, 'checkpoint mismatch');
    while (older < valid.length && valid[older]!.time < c.time - CLOCK_SKEW_SECONDS) olderMax = Math.max(olderMax, valid[older++]!.seq);
    if (c.seq < olderMax) return broken(c.seq, 'checkpoint order');
    bySeq.set(c.seq, signed);
    highest = Math.max(highest, c.seq);
  }
  const head = await storedHead(query, tenantId);
  report.head = Number(head?.seq ?? 0);
  let last = 0;
  let link: Buffer = Buffer.alloc(0);
  let digest: Buffer = Buffer.alloc(0);
  for (;;) {
    const rows = await eventsAfter(query, tenantId, last, PAGE);
    for (const r of rows) {
      const seq = Number(r.seq);
      if (seq !== last + 1) return broken(last + 1, 'gap');
      const e = { ...r, when: Number(r.when) } as unknown as AuditEventRow;
      digest = followingDigest(digest, seq, canonical(e), e.digest);
      // The stored digest must be the one recomputed from the stored events; links are 32-byte MACs, each chained
      // on the one before, so a repeat means a link was copied, not computed.
      if (!e.digest?.equals(digest) || e.hash.length !== 32 || e.hash.equals(link)) return broken(seq, 'link');
      const signed = bySeq.get(seq);
      if (signed && !(signed.link.equals(e.hash) && signed.digest.equals(digest))) return broken(seq, 'checkpoint mismatch');
      report.events += 1;
      if (signed) report.provenUpTo = seq;
      link = e.hash;
      last = seq;
    }
    if (rows.length < PAGE) break;
  }
  if (highest > last) return broken(last + 1, 'checkpoint mismatch');
  if (report.head > last) return broken(last + 1, 'gap');
  if (report.head < last || !link.equals(head?.hash as Buffer) || !digest.equals(head?.digest as Buffer)) return broken(Math.max(report.head, 1), 'link');
  return report;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      tenant: { type: 'string' },
      checkpoints: { type: 'string' },
      'public-key': { type: 'string' },
      's3-endpoint': { type: 'string' },
      's3-region': { type: 'string' },
      's3-force-path-style': { type: 'boolean' },
      'from-file': { type: 'string' },
      proof: { type: 'string' },
      'tsa-cert': { type: 'string' },
      complete: { type: 'boolean' },
    },
  });
  if (values.proof !== undefined) return verifyProofFile(values.proof, values['public-key'], values['tsa-cert']);
  if (values['from-file'] !== undefined) return verifyFile(values['from-file'], values['public-key'], values['tsa-cert'], values.complete === true);
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (!url || !values.tenant || !values.checkpoints || !values['public-key']) {
    process.stderr.write(
      'usage: npm run audit:verify -- --database-url <url> --tenant <name|id> --checkpoints <dir|file|s3://bucket/prefix> --public-key <pem file>\n' +
        '       [--s3-endpoint <url>] [--s3-region <region>] [--s3-force-path-style]  (credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE…)\n' +
        '   or: npm run audit:verify -- --from-file <file|-> --public-key <pem file> [--tsa-cert <pem file>] [--complete]  (a SIEM\'s copy: JSON lines, OCSF or syslog; --complete: from an unfiltered sink)\n' +
        '   or: npm run audit:verify -- --proof <file|-> --public-key <pem file> [--tsa-cert <pem file>]  (a person\'s proof, from AuditProveEvents)\n',
    );
    return 2;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Read-only, and one snapshot: the head and the events as of one moment, while the vault keeps appending.
    return await HeldSql.snapshot(client, (sql) => verifyNow((text, params) => sql.query(text, params), { ...values, tenant: values.tenant!, checkpoints: values.checkpoints!, 'public-key': values['public-key']! }));
  } finally {
    await client.end();
  }
}

interface VerifyArgs {
  tenant: string;
  checkpoints: string;
  'public-key': string;
  's3-endpoint'?: string | undefined;
  's3-region'?: string | undefined;
  's3-force-path-style'?: boolean | undefined;
}

/** The verification of one tenant's trail, its statements in the command's snapshot: its exit code. */
async function verifyNow(query: Query, values: VerifyArgs): Promise<number> {
  const tenantId = await tenantIdOf(query, values.tenant);
  const access: BucketAccess = {
    endpoint: values['s3-endpoint'] ?? process.env.STRONGROOM_AUDIT_CHECKPOINTS_S3_ENDPOINT,
    region: values['s3-region'] ?? process.env.STRONGROOM_AUDIT_CHECKPOINTS_S3_REGION ?? process.env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: values['s3-force-path-style'] ?? ['true', '1', 'yes', 'on'].includes(process.env.STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE ?? ''),
  };
  const lines = await readCheckpointsFrom(values.checkpoints, tenantId, access);
  const report = await verifyTrail(query, tenantId, lines, readFileSync(values['public-key'], 'utf8'));
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.result === 'intact' ? 0 : 1;
}

/**
 * A SIEM's copy of the trails, from a file or stdin (`-`): one report line per tenant; exit 0 when every one is
 * intact, 1 naming the first broken sequence number of each that is not.
 */
async function verifyFile(path: string, publicKey: string | undefined, tsaCert: string | undefined, complete: boolean): Promise<number> {
  if (!publicKey) {
    process.stderr.write('usage: npm run audit:verify -- --from-file <file|-> --public-key <pem file> [--tsa-cert <pem file>] [--complete]\n');
    return 2;
  }
  const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  const copy = readCopy(text);
  const reports = await verifyCopy(copy.records, readFileSync(publicKey, 'utf8'), { tsaPem: tsaCert ? readFileSync(tsaCert, 'utf8') : undefined, complete });
  for (const r of reports) process.stdout.write(`${JSON.stringify(r)}\n`);
  // A line that claims to be a record and is not one faithfully (edited where a SIEM shows it) fails the copy.
  for (const m of copy.malformed) process.stdout.write(`${JSON.stringify({ result: 'broken', line: m.line, why: m.why })}\n`);
  if (!reports.length) process.stderr.write('audit:verify: the file holds no audit record\n');
  // A tenant whose copy proves nothing (no checkpoint after its events, or made up whole) is no evidence: it fails.
  const proving = reports.filter((r) => r.proven === 0);
  for (const r of proving) process.stderr.write(`audit:verify: tenant ${r.tenant}: no event of the copy is proven by a checkpoint\n`);
  return reports.length && !copy.malformed.length && !proving.length && reports.every((r) => r.result === 'intact') ? 0 : 1;
}

/**
 * A person's proof (AuditProveEvents' answer, or its `proof`), from a file or stdin: one report line; exit 0 when it
 * holds, 1 naming where it does not.
 */
async function verifyProofFile(path: string, publicKey: string | undefined, tsaCert: string | undefined): Promise<number> {
  if (!publicKey) {
    process.stderr.write('usage: npm run audit:verify -- --proof <file|-> --public-key <pem file> [--tsa-cert <pem file>]\n');
    return 2;
  }
  const text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  // The whole answer as saved from the API (or the portal), or its proof alone.
  const whole = value && typeof value === 'object' && 'proof' in value ? (value as { proof: unknown; publickey?: unknown }) : undefined;
  const pem = readFileSync(publicKey, 'utf8');
  const report = await verifyProof(whole ? whole.proof : value, pem, { tsaPem: tsaCert ? readFileSync(tsaCert, 'utf8') : undefined });
  // The key the file states is not evidence; one that differs from the key given is worth saying.
  if (typeof whole?.publickey === 'string' && !samePublicKey(whole.publickey, pem)) {
    process.stderr.write('audit:verify: the file states another public key than --public-key; it was checked against --public-key only\n');
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.result === 'intact' ? 0 : 1;
}

function samePublicKey(a: string, b: string): boolean {
  try {
    return keyFingerprint(a) === keyFingerprint(b);
  } catch {
    return false;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`audit:verify failed: ${(err as Error).message}\n`);
      process.exit(2);
    },
  );
}
