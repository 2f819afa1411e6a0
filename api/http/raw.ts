// The headers of an answer that is bytes, not JSON (the answer itself: ops/raw-answer.ts).
import type { RawBody } from '../ops/raw-answer.js';

/** The headers of a download: never rendered in place, never sniffed, never cached. */
export function rawHeaders(raw: RawBody): Record<string, string> {
  return {
    'Content-Type': raw.contentType,
    'Content-Disposition': contentDisposition(raw.filename),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cache-Control': 'no-store',
  };
}

/**
 * RFC 6266 `attachment` with an ASCII fallback name and the exact name as RFC 8187 `filename*` (UTF-8,
 * percent-encoded). Path separators become `_`: a download is a name, never a path.
 */
export function contentDisposition(filename: string): string {
  const name = filename.replace(/[/\\]/g, '_');
  const fallback = name.replace(/[^\x20-\x7e]|["%]/g, '_');
  // attr-char of RFC 8187: letters, digits and !#$&+-.^_`|~; everything else is percent-encoded.
  const encoded = [...Buffer.from(name, 'utf8')]
    .map((b) => (/[A-Za-z0-9!#$&+\-.^_`|~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
