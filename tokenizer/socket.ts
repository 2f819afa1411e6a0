// The tokenizer's listening addresses: its private unix socket (made bindable safely) and an optional TCP address.
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';

function isLive(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ path: socketPath });
    const done = (live: boolean) => {
      s.destroy();
      resolve(live);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    // No answer within a second is not "stale": refuse rather than steal a socket someone may be using.
    s.setTimeout(1000, () => done(true));
  });
}

/** Makes the socket path bindable: a private new directory, and a stale socket from a crash removed. */
export async function prepareSocket(socketPath: string): Promise<void> {
  const dir = dirname(socketPath);
  // Only a directory we create is tightened: an existing one (a pod's shared emptyDir) is the operator's choice.
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new Error(`${socketPath} exists and is not a socket: not replacing it`);
  if (await isLive(socketPath)) throw new Error(`another process is already serving on ${socketPath}`);
  unlinkSync(socketPath);
}

export function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
}
