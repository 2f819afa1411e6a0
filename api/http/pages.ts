// The vault's own pages: the admin console, the privacy portal (built into web/dist) and the API reference (/docs/).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { serveOpenApiJson, serveOpenApiYaml } from './openapi.js';

/**
 * No inline script or style, nothing from elsewhere, never inside a frame. Images may be data: URLs (the API
 * reference's icons); downloads are made from blob: URLs; the portal's challenge solver is a worker from 'self'
 * (worker-src falls back to script-src).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** The repository (or image) root: the nearest folder above this file that holds a package.json. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function swaggerUiDir(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    return null;
  }
}

function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
}

/** A file below `base` named by an untrusted relative path, or null when it escapes or does not exist. */
function inside(base: string, relative: string): string | null {
  const file = resolve(base, `.${sep}${relative}`);
  if (!file.startsWith(base + sep) || !existsSync(file)) return null;
  return file;
}

async function sendFile(ctx: Context, file: string, cache: 'immutable' | 'revalidate' | 'none'): Promise<void> {
  securityHeaders(ctx);
  ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
  ctx.set('Cache-Control', cache === 'immutable' ? 'public, max-age=31536000, immutable' : cache === 'revalidate' ? 'no-cache' : 'no-store');
  ctx.body = await readFile(file);
}

function notBuilt(ctx: Context): void {
  securityHeaders(ctx);
  ctx.status = 503;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'The console and the portal are not built: run `npm run build:web`.\n';
}

/** Mounts /console/, /portal/, /docs/, their assets and /openapi.{json,yml} on the router. */
export function mountPages(router: Router): void {
  const root = projectRoot();
  const dist = join(root, 'web', 'dist');
  const docs = join(root, 'web', 'docs');
  const swagger = swaggerUiDir();

  router.get('/openapi.json', serveOpenApiJson);
  router.get(['/openapi.yml', '/openapi.yaml'], serveOpenApiYaml);

  for (const page of ['console', 'portal'] as const) {
    // The pages keep their state in memory, so every path below them is the same single page.
    router.get([`/${page}`, `/${page}/{*rest}`], async (ctx) => {
      if (ctx.path === `/${page}`) return ctx.redirect(`/${page}/`);
      const index = join(dist, page, 'index.html');
      if (!existsSync(index)) return notBuilt(ctx);
      await sendFile(ctx, index, 'none');
    });
  }
  router.get('/static/{*file}', async (ctx) => {
    const file = inside(join(dist, 'static'), String(ctx.params.file ?? ''));
    if (!file) return;
    await sendFile(ctx, file, 'immutable');
  });

  router.get(['/docs', '/docs/{*file}'], async (ctx) => {
    if (ctx.path === '/docs') return ctx.redirect('/docs/');
    const name = String(ctx.params.file ?? '') || 'index.html';
    const own = inside(docs, name);
    if (own) return sendFile(ctx, own, 'revalidate');
    const vendor = swagger && SWAGGER_FILES.has(name) ? inside(swagger, name) : null;
    if (vendor) return sendFile(ctx, vendor, 'revalidate');
  });
}

/** What the reference page takes from swagger-ui-dist; nothing else there is served. */
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png']);

