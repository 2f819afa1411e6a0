// The tokenizer's gRPC server: batched hash, seal and open under per-tenant subkeys, plus standard health.
import { existsSync, mkdirSync, rmSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Logger } from 'pino';
import { PROTO_PATH, HEALTH_PROTO_PATH, loaderOptions, channelOptions } from './proto.js';
import { Subkeys } from './subkeys.js';
import { seal, open, SealError } from './aead.js';
import { blindIndex, INDEX_KINDS, type IndexKind } from './blind-index.js';
import type { Keyring } from './keyring.js';
import { batchDuration, batchItems } from './metrics.js';

const MAX_NAME = 256;
const SERVICE = 'strongroom.tokenizer.v1.Tokenizer';

interface BatchRequest {
  tenant_id: number;
  hash: { kind: string; value: string }[];
  seal: { table: string; row_id: string; plaintext: Buffer }[];
  open: { table: string; row_id: string; ciphertext: Buffer }[];
}

class BadItemError extends Error {}

function checkName(list: string, i: number, field: string, value: string): void {
  if (!value) throw new BadItemError(`${list}[${i}].${field} is empty`);
  if (value.length > MAX_NAME) throw new BadItemError(`${list}[${i}].${field} is longer than ${MAX_NAME}`);
}

/** The pure part of Run, so tests and benchmarks can drive it without a socket. */
export function runBatch(keys: Subkeys, activeVersion: number, req: BatchRequest, cancelled: () => boolean = () => false) {
  const tenant = req.tenant_id;
  if (!Number.isInteger(tenant) || tenant < 1) throw new BadItemError('tenant_id must be 1 or more');
  const hash = req.hash.map((item, i) => {
    if (!INDEX_KINDS.includes(item.kind as IndexKind)) throw new BadItemError(`hash[${i}].kind is not a known index kind`);
    return blindIndex(keys, tenant, item.kind as IndexKind, item.value);
  });
  const sealed = req.seal.map((item, i) => {
    checkName('seal', i, 'table', item.table);
    checkName('seal', i, 'row_id', item.row_id);
    if ((i & 255) === 255 && cancelled()) throw new Error('cancelled');
    return seal(keys, activeVersion, tenant, item.table, item.row_id, item.plaintext);
  });
  const opened = req.open.map((item, i) => {
    checkName('open', i, 'table', item.table);
    checkName('open', i, 'row_id', item.row_id);
    if ((i & 255) === 255 && cancelled()) throw new Error('cancelled');
    try {
      return open(keys, tenant, item.table, item.row_id, item.ciphertext);
    } catch (err) {
      if (err instanceof SealError) throw new BadItemError(`open[${i}]: ${err.message}`);
      throw err;
    }
  });
  return { hash, sealed, opened };
}

export interface RunningTokenizer {
  close(): Promise<void>;
}

export async function startTokenizerServer(opts: {
  keyring: Keyring;
  socketPath: string;
  tcpAddress?: string | undefined;
  log: Logger;
}): Promise<RunningTokenizer> {
  const { keyring, log } = opts;
  const keys = new Subkeys(keyring);
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync([PROTO_PATH, HEALTH_PROTO_PATH], loaderOptions)) as any;
  const server = new grpc.Server(channelOptions);

  server.addService(pkg.strongroom.tokenizer.v1.Tokenizer.service, {
    Run(call: grpc.ServerUnaryCall<BatchRequest, unknown>, callback: grpc.sendUnaryData<unknown>) {
      const started = process.hrtime.bigint();
      try {
        const result = runBatch(keys, keyring.active, call.request, () => call.cancelled);
        batchItems.inc({ kind: 'hash' }, call.request.hash.length);
        batchItems.inc({ kind: 'seal' }, call.request.seal.length);
        batchItems.inc({ kind: 'open' }, call.request.open.length);
        batchDuration.observe({ code: 'OK' }, Number(process.hrtime.bigint() - started) / 1e9);
        return callback(null, result);
      } catch (err) {
        const bad = err instanceof BadItemError;
        const code = bad ? grpc.status.INVALID_ARGUMENT : call.cancelled ? grpc.status.CANCELLED : grpc.status.INTERNAL;
        batchDuration.observe({ code: grpc.status[code] }, Number(process.hrtime.bigint() - started) / 1e9);
        // Never log item contents: only the position and the kind of failure.
        if (!bad && !call.cancelled) log.error({ err: { type: (err as Error).name } }, 'batch failed');
        return callback({ code, details: bad ? (err as Error).message : 'internal error' });
      }
    },
    KeyringInfo(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      return callback(null, { versions: keyring.versions, active: keyring.active });
    },
  });

  const healthy = (service: string) => service === '' || service === SERVICE;
  server.addService(pkg.grpc.health.v1.Health.service, {
    Check(call: grpc.ServerUnaryCall<{ service: string }, unknown>, callback: grpc.sendUnaryData<unknown>) {
      if (!healthy(call.request.service)) return callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
      return callback(null, { status: 'SERVING' });
    },
    Watch(call: grpc.ServerWritableStream<{ service: string }, unknown>) {
      call.write({ status: healthy(call.request.service) ? 'SERVING' : 'SERVICE_UNKNOWN' });
    },
  });

  // The socket's directory is private: only this pod's containers (same user) may talk to the key holder.
  mkdirSync(dirname(opts.socketPath), { recursive: true, mode: 0o700 });
  chmodSync(dirname(opts.socketPath), 0o700);
  if (existsSync(opts.socketPath)) rmSync(opts.socketPath);
  await bind(server, `unix:${opts.socketPath}`);
  if (opts.tcpAddress) await bind(server, opts.tcpAddress);

  return {
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
}
