// The embedded PostgreSQL: PGlite in the data directory, served on a private unix socket to the pg driver.
import { mkdirSync, chmodSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** Directory holding `.s.PGSQL.5432`, the name the pg driver looks for. */
  socketDir: string;
  close(): Promise<void>;
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const pgDir = join(dataDir, 'pglite');
  // PGlite accepts any user and password, so only a 0700 directory guards the socket.
  const socketDir = join(dataDir, 'run', 'pg');
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  mkdirSync(socketDir, { recursive: true, mode: 0o700 });
  chmodSync(socketDir, 0o700);
  const socketPath = join(socketDir, '.s.PGSQL.5432');
  if (existsSync(socketPath)) rmSync(socketPath);

  const db = await PGlite.create({ dataDir: pgDir });
  // The pool holds one connection; the spare slots let a reconnect in while a dead socket is still counted.
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 4 });
  await server.start();
  return {
    socketDir,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
