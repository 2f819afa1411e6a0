// What a file's bytes are: strict base64 decoding of `filedata`, and its mimetype from magic bytes when none is given.

/**
 * The bytes of standard or URL-safe base64, padded or not, line breaks allowed (MIME style); undefined for
 * anything else. Buffer.from alone would skip bad characters silently and store something else than was sent.
 */
export function decodeBase64(text: string): Buffer | undefined {
  const s = /\s/.test(text) ? text.replace(/\s+/g, '') : text;
  // Searching for one bad character is several times faster than matching the whole text (a 32 MiB upload).
  const urlSafe = /[^A-Za-z0-9+/=]/.test(s);
  if (urlSafe && /[^A-Za-z0-9_=-]/.test(s)) return undefined;
  const pad = s.indexOf('=');
  if (pad !== -1 && (s.length - pad > 2 || s.at(-1) !== '=' || s.length % 4 !== 0)) return undefined;
  if (pad === -1 && s.length % 4 === 1) return undefined;
  return Buffer.from(s, urlSafe ? 'base64url' : 'base64');
}

/** The decoded size of base64 text of this length, at most: a cheap check before decoding a huge body. */
export function base64Capacity(length: number): number {
  return Math.floor((length * 3) / 4);
}

interface Signature {
  type: string;
  at: number;
  bytes: number[];
  /** A second signature that must also match (RIFF containers). */
  and?: { at: number; bytes: number[] };
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

// Binary formats by their magic bytes. Text types are never guessed beyond plain text and JSON: a browser must
// not be told an upload is HTML or SVG because it looks like one.
const SIGNATURES: Signature[] = [
  { type: 'image/png', at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', at: 0, bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', at: 0, bytes: ascii('GIF87a') },
  { type: 'image/gif', at: 0, bytes: ascii('GIF89a') },
  { type: 'image/webp', at: 0, bytes: ascii('RIFF'), and: { at: 8, bytes: ascii('WEBP') } },
  { type: 'application/pdf', at: 0, bytes: ascii('%PDF-') },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x05, 0x06] },
  { type: 'application/zip', at: 0, bytes: [0x50, 0x4b, 0x07, 0x08] },
  { type: 'application/gzip', at: 0, bytes: [0x1f, 0x8b] },
];

const matches = (data: Buffer, at: number, bytes: number[]) => data.length >= at + bytes.length && bytes.every((b, i) => data[at + i] === b);

/** How much of a file decides whether it is text: enough for any real text, little enough for a 32 MiB upload. */
const TEXT_SAMPLE = 64 * 1024;

export const OCTET_STREAM = 'application/octet-stream';

/** The mimetype of content by its magic bytes; JSON or plain text for UTF-8 text; application/octet-stream otherwise. */
export function sniffMimetype(data: Buffer): string {
  for (const sig of SIGNATURES) {
    if (matches(data, sig.at, sig.bytes) && (!sig.and || matches(data, sig.and.at, sig.and.bytes))) return sig.type;
  }
  const text = sampleText(data);
  if (text === undefined) return OCTET_STREAM;
  const first = text.trimStart()[0];
  const last = data.length <= TEXT_SAMPLE ? text.trimEnd().at(-1) : lastNonSpace(data);
  if ((first === '{' && last === '}') || (first === '[' && last === ']')) return 'application/json';
  return 'text/plain; charset=utf-8';
}

/** The start of the content as text when it is UTF-8 without control characters other than whitespace. */
function sampleText(data: Buffer): string | undefined {
  if (!data.length) return undefined;
  let sample = data.subarray(0, TEXT_SAMPLE);
  if (matches(sample, 0, [0xef, 0xbb, 0xbf])) sample = sample.subarray(3);
  let text: string;
  try {
    // stream: a character cut in two at the end of the sample is not an error.
    text = new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: data.length > TEXT_SAMPLE });
  } catch {
    return undefined;
  }
  return /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text) ? undefined : text;
}

function lastNonSpace(data: Buffer): string | undefined {
  for (let i = data.length - 1; i >= 0; i--) {
    const c = data[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return String.fromCharCode(c);
  }
  return undefined;
}
