// `npm start`'s first step: builds dist/ and the pages (web/dist) only when a source is newer than the last build,
// so a start without changes goes straight to the compiled programs (no compiler at start). `--force` always
// builds both (`npm run build`).
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPages, ensurePagesBuilt } from '../web/scripts/ensure-built.js';
import { compile, CONFIG, SOURCES } from './compile.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.built');

/** The newest modification time among the sources the build reads. */
function newestSource(): number {
  let newest = 0;
  for (const dir of SOURCES) {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
      if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
    }
  }
  for (const file of CONFIG) if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

function build(): void {
  // From clean: a module deleted from the sources must not live on in dist/.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const { status } = compile(root, join(root, 'dist'));
  if (status !== 0) process.exit(status ?? 1);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

const started = performance.now();
const force = process.argv.includes('--force');
if (force || !existsSync(stamp) || statSync(stamp).mtimeMs < newestSource()) {
  build();
  process.stderr.write(`Strongroom: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
} else {
  process.stderr.write(`Strongroom: dist/ is up to date (checked in ${Math.round(performance.now() - started)} ms)\n`);
}
const pagesStarted = performance.now();
if (force) buildPages();
else if (ensurePagesBuilt()) process.stderr.write(`Strongroom: built the pages (web/dist) in ${((performance.now() - pagesStarted) / 1000).toFixed(1)} s\n`);
