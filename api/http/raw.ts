// Answers that are bytes, not JSON (FileGet with `raw: true`): the operation returns one, the v2 handler sends it.

const RAW = Symbol('raw answer');

export interface RawBody {
  body: Buffer;
  /** A validated mimetype: it becomes the Content-Type header as is. */
  contentType: string;
  filename: string;
}

/** What an operation returns to answer with bytes; JSON serialisation would see an empty object. */
export function rawAnswer(raw: RawBody): Record<string, unknown> {
  return { [RAW]: raw };
}

export function rawOf(result: Record<string | symbol, unknown>): RawBody | undefined {
  return result[RAW] as RawBody | undefined;
}

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
