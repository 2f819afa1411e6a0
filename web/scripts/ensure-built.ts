// Builds the console and the portal (web/dist) when the build is missing or older than its sources:
// `npx tsx web/scripts/ensure-built.ts` (what `npm start` runs first) and the browser tests' set-up.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WEB = join(ROOT, 'web');
const BUILT = join(WEB, 'dist', 'console', 'index.html');
const SKIP = new Set(['dist', 'screenshots', 'node_modules', '.build-lock']);

/** The newest modification time among the page sources (everything under web/ except the build output). */
function newestSource(dir = WEB): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function current(): boolean {
  return existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestSource();
}

/** Builds the pages now (`npm run build`). */
export function buildPages(): void {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * Builds the pages when they are missing or older than their sources; true when it built. A lock directory keeps
 * two processes that start together (test files, replicas) from building at once.
 */
export function ensurePagesBuilt(): boolean {
  if (current()) return false;
  const lock = join(WEB, '.build-lock');
  const deadline = Date.now() + 80_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      else execFileSync('sleep', ['0.5']);
    }
  }
  try {
    if (current()) return false;
    buildPages();
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensurePagesBuilt();
