// The compilation both `npm run build` (api/build.ts, into dist/) and the test set-up (test/fixtures/run-cache.ts,
// into .test-run/builds/<hash>/) make: tsc with tsconfig.build.json, then the .proto files beside the compiled
// loader, which finds them relative to itself.
import { spawnSync } from 'node:child_process';
import { cpSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The directories tsconfig.build.json compiles (and the .proto files come from), and the files that decide how. */
export const SOURCES = ['api', 'tokenizer', 'proto', 'operator'];
export const CONFIG = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/**
 * Compiles the checkout at `root` into `outDir`. Returns tsc's exit status and, when `quiet`, what it printed (else it
 * prints as it goes); the .proto files are copied only after a clean compile.
 */
export function compile(root: string, outDir: string, quiet = false): { status: number | null; report: string } {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], {
    cwd: root,
    stdio: quiet ? 'pipe' : 'inherit',
    encoding: 'utf8',
  });
  const report = `${tsc.stdout ?? ''}${tsc.stderr ?? ''}${tsc.error?.message ?? ''}`;
  if (tsc.status === 0) cpSync(join(root, 'proto'), join(outDir, 'proto'), { recursive: true, filter: (src) => statSync(src).isDirectory() || src.endsWith('.proto') });
  return { status: tsc.status, report };
}
