// Checkpoint timestamps against a real RFC 3161 authority (OpenSSL's `ts -reply`, test/fixtures/tsa.ts): a token
// asked for verifies under the TSA's certificate and its CA and nothing else, binds its imprint and its bytes, and
// OpenSSL's own `ts -verify` accepts it; a TSA that is down, silent, failing or replaying is refused in time.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as asn1js from 'asn1js';
import { ContentInfo, PKIStatusInfo, SignedData, TimeStampResp } from 'pkijs';
import { describe, expect, test } from 'vitest';
import { checkpointImprint, requestTimestamp, verifyTimestamp } from '../../api/vault/audit/tsa.js';
import { checkpointLine } from '../../proto/audit-checkpoint.js';
import { startTsa, type TestTsa } from '../fixtures/tsa.js';

const execFileAsync = promisify(execFile);
const TIMEOUT = { timeoutMs: 10_000 };

const it = test.extend('tsa', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestTsa> => {
  const tsa = await startTsa();
  onCleanup(() => tsa.stop());
  return tsa;
});

const imprint = () => randomBytes(32);

/** A server on 127.0.0.1 answering with `handler`; closed (connections too) when the test is done. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, onCleanup: (fn: () => Promise<void>) => void): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Where the token's encapsulated TSTInfo (everything the TSA signs about the time) lies in its bytes. */
function tstInfoRange(token: Buffer): [number, number] {
  const signed = new SignedData({ schema: ContentInfo.fromBER(token).content });
  const content = Buffer.from(signed.encapContentInfo.eContent!.getValue());
  const start = token.indexOf(content);
  expect(start).toBeGreaterThan(0);
  return [start, start + content.length];
}

function flipped(token: Buffer, at: number, bit = 1): Buffer {
  const copy = Buffer.from(token);
  copy[at]! ^= bit;
  return copy;
}

describe('a timestamp from a real TSA', () => {
  it('verifies under the TSA certificate and under its CA, at the time it was asked for', async ({ tsa }) => {
    const line = checkpointLine({ tenant: 7, seq: 42, link: randomBytes(32), digest: randomBytes(32), time: 1_700_000_000 }, randomBytes(64));
    const asked = Date.now() / 1000;
    const token = await requestTimestamp(tsa.url, checkpointImprint(line), TIMEOUT);
    const byCert = await verifyTimestamp(token, checkpointImprint(line), tsa.tsaCertPem);
    const byCa = await verifyTimestamp(token, checkpointImprint(line), tsa.caPem);
    expect(byCa).toEqual(byCert);
    expect(Number.isInteger(byCert.time)).toBe(true);
    expect(Math.abs(byCert.time - asked)).toBeLessThan(5);
    // A bundle (the other CA, then this one) trusts it too.
    await expect(verifyTimestamp(token, checkpointImprint(line), tsa.otherCaPem + tsa.caPem)).resolves.toEqual(byCert);
  });

  it('answers requests made at once, each with a token of its own', async ({ tsa }) => {
    const imprints = Array.from({ length: 4 }, imprint);
    const tokens = await Promise.all(imprints.map((i) => requestTimestamp(tsa.url, i, TIMEOUT)));
    expect(new Set(tokens.map((t) => t.toString('hex'))).size).toBe(4);
    for (const [n, token] of tokens.entries()) await expect(verifyTimestamp(token, imprints[n]!, tsa.caPem)).resolves.toBeDefined();
  });

  it('does not verify under a CA that did not issue the TSA certificate', async ({ tsa }) => {
    const i = imprint();
    const token = await requestTimestamp(tsa.url, i, TIMEOUT);
    await expect(verifyTimestamp(token, i, tsa.otherCaPem)).rejects.toThrow(/TSA certificate \(CN=Strongroom test TSA\) is not trusted/);
  });

  it('does not verify for another imprint', async ({ tsa }) => {
    const a = imprint();
    const token = await requestTimestamp(tsa.url, a, TIMEOUT);
    await expect(verifyTimestamp(token, imprint(), tsa.caPem)).rejects.toThrow(/imprint mismatch/);
    // Nor for another checkpoint: the imprint covers the signature too.
    const line = checkpointLine({ tenant: 1, seq: 1, link: randomBytes(32), digest: randomBytes(32), time: 1 }, randomBytes(64));
    const stamped = await requestTimestamp(tsa.url, checkpointImprint(line), TIMEOUT);
    const resigned = { ...line, signature: randomBytes(64).toString('base64') };
    await expect(verifyTimestamp(stamped, checkpointImprint(resigned), tsa.caPem)).rejects.toThrow(/imprint mismatch/);
  });

  it('does not verify with one byte flipped in what the TSA signed, in its signature or in its certificate', async ({ tsa }) => {
    const i = imprint();
    const token = await requestTimestamp(tsa.url, i, TIMEOUT);
    const genTime = token.indexOf(Buffer.from([0x18, 0x0f])) + 2; // GeneralizedTime, YYYYMMDDhhmmssZ
    expect(genTime).toBeGreaterThan(2);
    const lastSecond = genTime + 13;
    await expect(verifyTimestamp(flipped(token, lastSecond), i, tsa.caPem)).rejects.toThrow(/signature does not verify/);
    await expect(verifyTimestamp(flipped(token, token.length - 1), i, tsa.caPem)).rejects.toThrow(/signature does not verify/);
    const certificate = Buffer.from(tsa.tsaCertPem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
    const certAt = token.indexOf(certificate);
    expect(certAt).toBeGreaterThan(0);
    // In the CA's signature on the TSA certificate (its last bytes): still the certificate the signer names.
    const inCertificate = certAt + certificate.length - 5;
    await expect(verifyTimestamp(flipped(token, inCertificate), i, tsa.tsaCertPem)).rejects.toThrow(/TSA certificate .* is not trusted/);
    await expect(verifyTimestamp(flipped(token, inCertificate), i, tsa.caPem)).rejects.toThrow(/TSA certificate .* is not trusted/);
    // Every byte of the signed TSTInfo.
    const [start, end] = tstInfoRange(token);
    for (let at = start; at < end; at++) {
      await expect(verifyTimestamp(flipped(token, at), i, tsa.caPem), `byte ${at}`).rejects.toThrow(/signature does not verify|imprint|cannot be read/);
    }
    await expect(verifyTimestamp(token, i, tsa.caPem)).resolves.toBeDefined();
  });

  it('does not verify when signed by a certificate of the same CA without the critical timeStamping usage', async ({ tsa }) => {
    const i = imprint();
    const token = await requestTimestamp(tsa.url, i, TIMEOUT);
    const tstInfo = token.subarray(...tstInfoRange(token));
    for (const signer of ['no-eku', 'eku-not-critical', 'other-eku'] as const) {
      const forged = await tsa.signAs(signer, tstInfo);
      // Everything else holds: the error is the usage's, reached only past the signature and the chain.
      await expect(verifyTimestamp(forged, i, tsa.caPem), signer).rejects.toThrow(/lacks the critical extended key usage id-kp-timeStamping/);
    }
  });

  it('does not verify when back-dated to before the TSA certificate was valid, even by the TSA key', async ({ tsa }) => {
    const i = imprint();
    const token = await requestTimestamp(tsa.url, i, TIMEOUT);
    const tstInfo = Buffer.from(token.subarray(...tstInfoRange(token)));
    const genTime = tstInfo.indexOf(Buffer.from([0x18, 0x0f])) + 2;
    tstInfo.write('2020', genTime, 'latin1'); // the year: YYYYMMDDhhmmssZ
    const backdated = await tsa.signAs('tsa', tstInfo);
    await expect(verifyTimestamp(backdated, i, tsa.tsaCertPem)).rejects.toThrow(/TSA certificate \(CN=Strongroom test TSA\) was not valid at the token's time/);
    await expect(verifyTimestamp(backdated, i, tsa.caPem)).rejects.toThrow(/TSA certificate \(CN=Strongroom test TSA\) was not valid at the token's time/);
    // The same TSTInfo, not back-dated, signed the same way, verifies: the date is what fails above.
    await expect(verifyTimestamp(await tsa.signAs('tsa', token.subarray(...tstInfoRange(token))), i, tsa.tsaCertPem)).resolves.toBeDefined();
  });

  it('does not verify when signed over SHA-1, even by the TSA key', async ({ tsa }) => {
    const i = imprint();
    const token = await requestTimestamp(tsa.url, i, TIMEOUT);
    const sha1 = await tsa.signAs('tsa', token.subarray(...tstInfoRange(token)), 'sha1');
    await expect(verifyTimestamp(sha1, i, tsa.caPem)).rejects.toThrow(/signed over a digest not accepted here \(1\.3\.14\.3\.2\.26\)/);
  });

  it('is accepted by OpenSSL ts -verify, and refused by it for another digest', async ({ tsa, onTestFinished: onCleanup }) => {
    const dir = await mkdtemp(join(tmpdir(), 'tsa-verify-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const i = imprint();
    const token = await requestTimestamp(tsa.url, i, TIMEOUT);
    await Promise.all([
      writeFile(join(dir, 'token.der'), token),
      writeFile(join(dir, 'ca.pem'), tsa.caPem),
      writeFile(join(dir, 'tsa.pem'), tsa.tsaCertPem),
      writeFile(join(dir, 'openssl.cnf'), ''),
    ]);
    const verify = (digest: Buffer) =>
      execFileAsync('openssl', ['ts', '-verify', '-digest', digest.toString('hex'), '-token_in', '-in', 'token.der', '-CAfile', 'ca.pem', '-untrusted', 'tsa.pem'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OPENSSL_CONF: join(dir, 'openssl.cnf') },
      });
    expect((await verify(i)).stdout).toMatch(/Verification: OK/);
    await expect(verify(createHash('sha256').update(i).digest())).rejects.toThrow(/Verification: FAILED|message imprint mismatch/);
  });
});

describe('asking a TSA that fails', () => {
  it('rejects at once when nothing listens on the port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const started = Date.now();
    await expect(requestTimestamp(`http://127.0.0.1:${port}/tsa`, imprint(), { timeoutMs: 5_000 })).rejects.toThrow(/TSA at http:\/\/127\.0\.0\.1:\d+ could not be reached/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects within the timeout when the TSA takes the request and never answers', async ({ onTestFinished: onCleanup }) => {
    const url = await serve(() => undefined, onCleanup);
    const started = Date.now();
    await expect(requestTimestamp(url, imprint(), { timeoutMs: 300 })).rejects.toThrow(/did not answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('rejects within the timeout when the TSA sends its headers and then stalls', async ({ onTestFinished: onCleanup }) => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': 2000 });
      res.write(Buffer.from([0x30, 0x82]));
    }, onCleanup);
    const started = Date.now();
    await expect(requestTimestamp(url, imprint(), { timeoutMs: 300 })).rejects.toThrow(/did not answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('rejects an HTTP 500, naming the status', async ({ onTestFinished: onCleanup }) => {
    const url = await serve((_req, res) => res.writeHead(500).end('broken'), onCleanup);
    await expect(requestTimestamp(url, imprint(), TIMEOUT)).rejects.toThrow(/answered HTTP 500/);
  });

  it('rejects a reply that is no TimeStampResp', async ({ onTestFinished: onCleanup }) => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end('hello'), onCleanup);
    await expect(requestTimestamp(url, imprint(), TIMEOUT)).rejects.toThrow(/sent no TimeStampResp/);
  });

  it('rejects a refusal, naming the PKIStatus and what the TSA said', async ({ onTestFinished: onCleanup }) => {
    const refusal = new TimeStampResp({ status: new PKIStatusInfo({ status: 2, statusStrings: [new asn1js.Utf8String({ value: 'unaccepted policy' })] }) });
    const url = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from(refusal.toSchema().toBER(false))), onCleanup);
    await expect(requestTimestamp(url, imprint(), TIMEOUT)).rejects.toThrow(/refused the timestamp \(PKIStatus 2: unaccepted policy\)/);
  });

  it('rejects a genuine reply replayed for another request (nonce) or another imprint', async ({ tsa, onTestFinished: onCleanup }) => {
    let saved: Buffer | undefined;
    const url = await serve((req, res) => {
      void (async () => {
        const query = await body(req);
        saved ??= Buffer.from(await (await fetch(tsa.url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: query })).arrayBuffer());
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(saved);
      })();
    }, onCleanup);
    const i = imprint();
    await expect(requestTimestamp(url, i, TIMEOUT)).resolves.toBeInstanceOf(Buffer);
    await expect(requestTimestamp(url, i, TIMEOUT)).rejects.toThrow(/another nonce/);
    await expect(requestTimestamp(url, imprint(), TIMEOUT)).rejects.toThrow(/another imprint/);
  });
});
