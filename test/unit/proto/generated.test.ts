// proto/generated/ is what proto-loader-gen-types makes of today's protos, with flags matching the loader's
// options: stale types would let the api and the tokenizer disagree about the wire without tsc noticing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loaderOptions } from '../../../proto/loader.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GENERATOR = createRequire(import.meta.url).resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
const COMMITTED = join(ROOT, 'proto', 'generated');

/** `npm run gen:proto` runs the generator from the repository root with these, and `-O proto/generated`. */
const FLAGS = ['--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js', '--includeComments', '--importFileExtension=.js'];
const PROTOS = ['proto/tokenizer.proto', 'proto/health.proto'];

/** Every file under `dir`, by its path relative to `dir`, with its text. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = readFileSync(path, 'utf8');
  }
  return files;
}

describe('generated gRPC types', () => {
  it('are exactly what the generator makes of the protos today', async () => {
    const out = mkdtempSync(join(tmpdir(), 'sr-gen-'));
    await run(process.execPath, [GENERATOR, ...FLAGS, '-O', out, ...PROTOS], { cwd: ROOT });
    const fresh = tree(out);
    expect(Object.keys(fresh).length).toBeGreaterThan(0);
    // File names first, so a missing or extra file is named rather than buried in a diff of contents.
    expect(Object.keys(tree(COMMITTED)).sort()).toEqual(Object.keys(fresh).sort());
    expect(tree(COMMITTED)).toEqual(fresh);
  }, 60_000);

  it('describe what the loader hands over: each loader option has its generator flag', () => {
    // keepCase → --keepCase, longs → --longs=String, enums → --enums=String, defaults → --defaults,
    // oneofs → --oneofs; bytes as Buffers is the generator's default.
    expect(loaderOptions).toEqual({ keepCase: true, longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true });
    expect(FLAGS).toEqual(expect.arrayContaining(['--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs']));
  });
});
