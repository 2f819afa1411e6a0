// Sealed file content in a local directory: one file per key, written to a temporary name, synced, then renamed.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, open, opendir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { BlobObject, BlobStore } from './index.js';

const KEY = /^[a-z0-9][a-z0-9.-]*(\/[a-z0-9][a-z0-9.-]*)*$/;

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private path(key: string): string {
    // Keys come from the vault, never from a request; still, nothing may point outside the directory.
    if (!KEY.test(key) || key.split('/').includes('..')) throw new Error('not a blob key');
    return join(this.dir, ...key.split('/'));
  }

  async put(key: string, body: Buffer): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // A crash leaves a temporary file, never half an object under its real name; the orphan sweep removes it.
    const tmp = `${path}.${randomBytes(8).toString('hex')}.tmp`;
    const file = await open(tmp, 'wx', 0o600);
    try {
      await file.writeFile(body);
      await file.sync();
    } catch (err) {
      await file.close();
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await file.close();
    await rename(tmp, path);
    // The rename itself must reach the disk before the file row that names it commits.
    const parent = await open(dirname(path), 'r');
    try {
      await parent.sync();
    } finally {
      await parent.close();
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  async *list(prefix: string): AsyncIterable<BlobObject> {
    yield* this.walk(this.dir, prefix);
  }

  private async *walk(dir: string, prefix: string): AsyncIterable<BlobObject> {
    let entries;
    try {
      entries = await opendir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for await (const entry of entries) {
      const path = join(dir, entry.name);
      const key = relative(this.dir, path).split(sep).join('/');
      if (entry.isDirectory()) {
        // Only directories that can hold keys with the prefix are entered.
        if (prefix.startsWith(`${key}/`) || key.startsWith(prefix) || prefix === '') yield* this.walk(path, prefix);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        const info = await stat(path).catch(() => undefined);
        if (info) yield { key, modified: Math.floor(info.mtimeMs / 1000) };
      }
    }
  }

  close(): void {}
}
