// RFC 3161 timestamps of signed audit checkpoints: an independent Time-Stamp Authority countersigns when a checkpoint
// (what was signed, and the signature) existed, so not even the holder of the checkpoint key can back-date a rewrite.
// Asks a TSA over HTTP for a token and verifies a token offline against the TSA's certificate or its CA, with nothing
// but the token, the checkpoint line and that PEM (the auditor's command runs it without network or database).
import { createHash, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import {
  AlgorithmIdentifier,
  Certificate,
  CertificateChainValidationEngine,
  ContentInfo,
  CryptoEngine,
  ExtKeyUsage,
  IssuerAndSerialNumber,
  MessageImprint,
  SignedData,
  TimeStampReq,
  TimeStampResp,
  TSTInfo,
  id_eContentType_TSTInfo,
  id_sha256,
} from 'pkijs';
import { checkpointMessage, type CheckpointLine } from '../../../proto/audit-checkpoint.js';

const ID_KP_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
const ID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const ID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
/** Attribute types of a certificate's subject, as errors name them. */
const NAMES: Record<string, string> = { '2.5.4.3': 'CN', '2.5.4.6': 'C', '2.5.4.10': 'O', '2.5.4.11': 'OU' };
/** Digests a TSA may sign over (SHA-1 and MD5 no longer bind a signature to its content). */
const STRONG_DIGESTS = new Set(['SHA-256', 'SHA-384', 'SHA-512']);
/** A TSA's reply is a few kilobytes (a token and its certificates); more is not a TSA. */
const MAX_REPLY = 1024 * 1024;

/**
 * What a checkpoint's timestamp covers: SHA-256 of checkpointMessage() of the line's fields followed by the raw
 * signature bytes, so the token binds both what was signed and the signature. The message is domain-separated JSON
 * and an Ed25519 signature is always 64 bytes, so the two parts cannot be re-split differently.
 * Changing this voids every timestamp ever taken: auditors keep the old ones.
 */
export function checkpointImprint(c: CheckpointLine): Buffer {
  const message = checkpointMessage({ tenant: c.tenant, seq: c.seq, link: Buffer.from(c.link, 'hex'), digest: Buffer.from(c.digest, 'hex'), time: c.time });
  return createHash('sha256').update(message).update(Buffer.from(c.signature, 'base64')).digest();
}

function sha256Imprint(imprint: Buffer): void {
  if (imprint.length !== 32) throw new Error(`a timestamp imprint is a SHA-256 digest (32 bytes), not ${imprint.length} bytes`);
}

/** The DER of a TimeStampReq (version 1) for a SHA-256 imprint, with `nonce` (positive) and certReq true. */
export function timestampRequest(imprint: Buffer, nonce: bigint): Buffer {
  sha256Imprint(imprint);
  if (nonce <= 0n) throw new Error('a timestamp nonce is a positive integer');
  const request = new TimeStampReq({
    version: 1,
    messageImprint: new MessageImprint({
      hashAlgorithm: new AlgorithmIdentifier({ algorithmId: id_sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: imprint }),
    }),
    nonce: asn1js.Integer.fromBigInt(nonce),
    certReq: true,
  });
  return Buffer.from(request.toSchema().toBER(false));
}

/** A whole DER value of `bytes`, or a clear error (asn1js reads a prefix and leaves trailing bytes unremarked). */
function readDer(bytes: Buffer, what: string): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes);
  if (parsed.offset === -1 || parsed.offset !== bytes.length) throw new Error(`the ${what} is not valid DER`);
  return parsed.result;
}

interface ParsedToken {
  signed: SignedData;
  tst: TSTInfo;
  /** The encapsulated TSTInfo's DER: what the signed message-digest attribute covers. */
  content: Uint8Array;
}

function parseToken(token: Buffer): ParsedToken {
  try {
    const info = new ContentInfo({ schema: readDer(token, 'timestamp token') });
    if (info.contentType !== ContentInfo.SIGNED_DATA) throw new Error('not SignedData');
    const signed = new SignedData({ schema: info.content });
    const eContent = signed.encapContentInfo.eContent;
    if (signed.encapContentInfo.eContentType !== id_eContentType_TSTInfo || !eContent) throw new Error('no TSTInfo');
    const content = eContent.getValue();
    return { signed, tst: TSTInfo.fromBER(content), content: new Uint8Array(content) };
  } catch (e) {
    throw new Error(`the timestamp token cannot be read: ${(e as Error).message}`, { cause: e });
  }
}

function imprintOf(tst: TSTInfo): Buffer {
  if (tst.messageImprint.hashAlgorithm.algorithmId !== id_sha256) throw new Error('the timestamp token imprints another hash than SHA-256');
  return Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView);
}

/** A failure of the HTTP exchange itself (no answer in time, no connection), as its error reads. */
function unanswered(origin: string, timeoutMs: number, e: unknown): Error {
  const err = e as Error & { cause?: { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return new Error(`the TSA at ${origin} did not answer within ${timeoutMs} ms`, { cause: e });
  return new Error(`the TSA at ${origin} could not be reached: ${err.cause?.code ?? err.message}`, { cause: e });
}

async function readReply(res: Response, origin: string): Promise<Buffer> {
  if (!res.body) throw new Error(`the TSA at ${origin} sent an empty reply`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > MAX_REPLY) throw new Error(`the TSA at ${origin} sent more than ${MAX_REPLY} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The token of a TimeStampResp, checked against what was asked: granted, the same imprint, the same nonce. */
function grantedToken(reply: Buffer, imprint: Buffer, nonce: bigint, origin: string): Buffer {
  let resp: TimeStampResp;
  let tokenBytes: Buffer | undefined;
  try {
    const outer = readDer(reply, 'reply');
    resp = new TimeStampResp({ schema: outer });
    const token = (outer as asn1js.Sequence).valueBlock.value[1];
    tokenBytes = token ? Buffer.from(token.valueBeforeDecodeView) : undefined;
  } catch (e) {
    throw new Error(`the TSA at ${origin} sent no TimeStampResp: ${(e as Error).message}`, { cause: e });
  }
  const status = resp.status.status;
  if (status !== 0 && status !== 1) {
    const text = resp.status.statusStrings?.map((s) => s.valueBlock.value).join('; ').slice(0, 200);
    throw new Error(`the TSA at ${origin} refused the timestamp (PKIStatus ${status}${text ? `: ${text}` : ''})`);
  }
  if (!tokenBytes) throw new Error(`the TSA at ${origin} granted a timestamp but sent no token`);
  const { tst } = parseToken(tokenBytes);
  if (!imprintOf(tst).equals(imprint)) throw new Error(`the TSA at ${origin} timestamped another imprint than the one asked for`);
  if (tst.nonce?.toBigInt() !== nonce) throw new Error(`the TSA at ${origin} answered with another nonce than the one asked for`);
  return tokenBytes;
}

/**
 * Asks the TSA at `url` to timestamp `imprint` (SHA-256) and returns the DER TimeStampToken (a ContentInfo of
 * SignedData), after checking the reply grants it for this imprint and this request's random 64-bit nonce. Does not
 * check the TSA's signature: verifyTimestamp does, with the trusted certificate. Rejects, never hangs, after
 * `timeoutMs` (connecting, the TSA's work and the reply together).
 */
export async function requestTimestamp(url: string, imprint: Buffer, opts: { timeoutMs: number }): Promise<Buffer> {
  const origin = new URL(url).origin; // errors name the origin: a URL may carry credentials
  const nonce = randomBytes(8).readBigUInt64BE() || 1n;
  const body = timestampRequest(imprint, nonce);
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const headers = { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' };
  const res = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'error' }).catch((e: unknown) => {
    throw unanswered(origin, opts.timeoutMs, e);
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`the TSA at ${origin} answered HTTP ${res.status}`);
  }
  // The same signal bounds the body: a TSA that sends headers and then stalls is cut off too.
  const reply = await readReply(res, origin).catch((e: unknown) => {
    throw signal.aborted ? unanswered(origin, opts.timeoutMs, e) : e;
  });
  return grantedToken(reply, imprint, nonce, origin);
}

function certificatesOf(pem: string): Certificate[] {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) throw new Error('the trusted PEM holds no certificate');
  return blocks.map((m) => Certificate.fromBER(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')));
}

function derOf(cert: Certificate): Buffer {
  return Buffer.from(cert.toSchema().toBER(false));
}

/** The certificate that signed, found by the SignerInfo's identifier among the token's and the trusted ones. */
function signerCertificate(signed: SignedData, trusted: Certificate[]): Certificate {
  const sid = signed.signerInfos[0]!.sid as unknown;
  const candidates = [...(signed.certificates ?? []).filter((c): c is Certificate => c instanceof Certificate), ...trusted];
  const found = candidates.find((cert) => {
    if (sid instanceof IssuerAndSerialNumber) return cert.issuer.isEqual(sid.issuer) && cert.serialNumber.isEqual(sid.serialNumber);
    // [0] SubjectKeyIdentifier: the certificate's own subjectKeyIdentifier extension.
    const keyId = Buffer.from((sid as asn1js.Primitive).valueBlock.valueHexView);
    const ski = cert.extensions?.find((x) => x.extnID === '2.5.29.14')?.parsedValue as asn1js.OctetString | undefined;
    return ski !== undefined && Buffer.from(ski.valueBlock.valueHexView).equals(keyId);
  });
  if (!found) throw new Error('the timestamp token names a signer certificate that is neither in it nor trusted');
  return found;
}

/** The signer certificate is a trusted one itself, or chains to a trusted one, valid at genTime. */
async function checkTrust(signer: Certificate, signed: SignedData, trusted: Certificate[], genTime: Date, engine: CryptoEngine): Promise<void> {
  const subject = signer.subject.typesAndValues.map((t) => `${NAMES[t.type] ?? t.type}=${t.value.valueBlock.value}`).join(', ');
  if (signer.notBefore.value > genTime || signer.notAfter.value < genTime) throw new Error(`the TSA certificate (${subject}) was not valid at the token's time`);
  const der = derOf(signer);
  if (trusted.some((t) => derOf(t).equals(der))) return;
  const certs = [...(signed.certificates ?? []).filter((c): c is Certificate => c instanceof Certificate), signer];
  const chain = new CertificateChainValidationEngine({ trustedCerts: trusted, certs, checkDate: genTime });
  const result = await chain.verify({}, engine).catch((e: { resultMessage?: string; message?: string }) => ({ result: false, resultMessage: e.resultMessage ?? e.message }));
  if (!result.result) throw new Error(`the TSA certificate (${subject}) is not trusted: it is not the trusted certificate and does not chain to a trusted CA (${result.resultMessage})`);
}

/** RFC 3161 2.3: the TSA's certificate carries one critical extended key usage, id-kp-timeStamping. */
function checkTimeStampingUsage(signer: Certificate): void {
  const eku = signer.extensions?.find((x) => x.extnID === '2.5.29.37');
  const purposes = eku?.parsedValue instanceof ExtKeyUsage ? eku.parsedValue.keyPurposes : [];
  if (!eku?.critical || !purposes.includes(ID_KP_TIME_STAMPING)) throw new Error('the TSA certificate lacks the critical extended key usage id-kp-timeStamping');
}

/** The CMS signature: signed attributes name TSTInfo and digest the content, and the signer's key signed them. */
async function checkSignature({ signed, content }: ParsedToken, signer: Certificate, engine: CryptoEngine): Promise<void> {
  const info = signed.signerInfos[0]!;
  const attrs = info.signedAttrs?.attributes ?? [];
  const contentType = attrs.find((a) => a.type === ID_CONTENT_TYPE)?.values[0] as asn1js.ObjectIdentifier | undefined;
  const digest = attrs.find((a) => a.type === ID_MESSAGE_DIGEST)?.values[0] as asn1js.OctetString | undefined;
  if (!info.signedAttrs || contentType?.valueBlock.toString() !== id_eContentType_TSTInfo || !digest) {
    throw new Error('the timestamp token signature does not verify: its signed attributes lack the TSTInfo content type or the message digest');
  }
  const hash = engine.getAlgorithmByOID(info.digestAlgorithm.algorithmId, false, 'digestAlgorithm');
  if (!('name' in hash) || !STRONG_DIGESTS.has(hash.name.toUpperCase())) throw new Error(`the timestamp token is signed over a digest not accepted here (${info.digestAlgorithm.algorithmId})`);
  const computed = Buffer.from(await engine.digest(hash, content));
  if (!computed.equals(Buffer.from(digest.valueBlock.valueHexView))) throw new Error('the timestamp token signature does not verify: its content does not match the signed digest');
  const ok = await engine.verifyWithPublicKey(info.signedAttrs.encodedValue, info.signature, signer.subjectPublicKeyInfo, info.signatureAlgorithm, hash.name).catch(() => false);
  if (!ok) throw new Error('the timestamp token signature does not verify under the TSA certificate');
}

/**
 * Verifies a DER TimeStampToken for `imprint` and returns its time (genTime, whole seconds since the epoch).
 * `trusted` is PEM: the TSA's own certificate, or one or more CA certificates its certificate chains to. Checks, and
 * names in its error what failed: the imprint, the signer certificate (trusted or chaining to a trusted CA, valid at
 * genTime, with the critical id-kp-timeStamping usage) and the CMS signature. No network: revocation is not checked.
 */
export async function verifyTimestamp(token: Buffer, imprint: Buffer, trusted: string): Promise<{ time: number }> {
  sha256Imprint(imprint);
  const trustedCerts = certificatesOf(trusted);
  const parsed = parseToken(token);
  if (!imprintOf(parsed.tst).equals(imprint)) throw new Error('the timestamp token is for another imprint (imprint mismatch)');
  if (parsed.signed.signerInfos.length !== 1) throw new Error('the timestamp token has not exactly one signer');
  const engine = new CryptoEngine({ name: 'node', crypto: globalThis.crypto });
  const signer = signerCertificate(parsed.signed, trustedCerts);
  const genTime = parsed.tst.genTime;
  // The signature first: a token altered after signing reads as such, whatever else its alteration breaks.
  await checkSignature(parsed, signer, engine);
  await checkTrust(signer, parsed.signed, trustedCerts, genTime, engine);
  checkTimeStampingUsage(signer);
  return { time: Math.floor(genTime.getTime() / 1000) };
}
