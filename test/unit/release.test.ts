// A version that means something: the package, the chart's version and appVersion, the image's default tag and the
// changelog's newest release are one version; the changelog says how to upgrade to it; and the previous release the
// upgrade test runs is a release the changelog names, older than this one.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string; previousRelease: { version: string; commit: string } };
const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;
const parts = (v: string) => SEMVER.exec(v)!.slice(1).map(Number);
const older = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
};
/** The changelog's releases, newest first, each with its text. */
function releases(): { version: string; body: string }[] {
  const text = read('CHANGELOG.md');
  return [...text.matchAll(/^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/gm)].map((m, i, all) => ({ version: m[1]!, body: text.slice(m.index + m[0].length, all[i + 1]?.index ?? text.length) }));
}

describe('the release', () => {
  it('is one semantic version in the package, its lock, the chart, the image and the changelog', () => {
    expect(pkg.version).toMatch(SEMVER);
    const lock = JSON.parse(read('package-lock.json')) as { version: string; packages: Record<string, { version: string }> };
    expect([lock.version, lock.packages['']!.version]).toEqual([pkg.version, pkg.version]);
    const chart = YAML.parse(read('charts/strongroom/Chart.yaml')) as { version: string; appVersion: string };
    expect([chart.version, chart.appVersion]).toEqual([pkg.version, pkg.version]);
    expect(read('Dockerfile')).toMatch(new RegExp(`^ARG VERSION=${pkg.version.replaceAll('.', '\\.')}$`, 'm'));
    expect(releases()[0]?.version).toBe(pkg.version);
  });

  it('says in the changelog how to upgrade to it, newest first, every version once', () => {
    const all = releases();
    expect(new Set(all.map((r) => r.version)).size).toBe(all.length);
    for (let i = 1; i < all.length; i++) expect(older(all[i]!.version, all[i - 1]!.version), `${all[i]!.version} after ${all[i - 1]!.version}`).toBe(true);
    expect(all[0]!.body).toMatch(/^### Upgrading$/m);
  });

  it('records the previous release: a full commit of a release the changelog names, older than this one', () => {
    expect(pkg.previousRelease.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(older(pkg.previousRelease.version, pkg.version)).toBe(true);
    const previous = releases().find((r) => r.version === pkg.previousRelease.version);
    expect(previous?.body).toContain(pkg.previousRelease.commit);
  });
});
