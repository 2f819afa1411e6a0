// What a file's bytes are: strict base64 decoding of `filedata`, and its mimetype from magic bytes when none is given.
import { fileTypeFromBuffer } from 'file-type';

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

// Markup is never guessed: a browser must not be told an upload is HTML, SVG or XML because it looks like one.
const MARKUP = /(^text\/|xml|html)/;

/** How much of a file decides whether it is text: enough for any real text, little enough for a 32 MiB upload. */
const TEXT_SAMPLE = 64 * 1024;

export const OCTET_STREAM = 'application/octet-stream';

/**
 * The mimetype of content by its magic bytes (file-type knows some hundred binary formats); JSON or plain text
 * for UTF-8 text; application/octet-stream otherwise.
 */
export async function sniffMimetype(data: Buffer): Promise<string> {
  const detected = await fileTypeFromBuffer(data);
  if (detected && !MARKUP.test(detected.mime)) return detected.mime;
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
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) sample = sample.subarray(3);
  let text: string;
  try {
    // stream: a character cut in two at the end of the sample is not an error.
    text = new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: data.length > TEXT_SAMPLE });
  } catch {
    return undefined;
  }
  // oxlint-disable-next-line no-control-regex -- control characters are exactly what marks binary content
  return /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text) ? undefined : text;
}

function lastNonSpace(data: Buffer): string | undefined {
  for (let i = data.length - 1; i >= 0; i--) {
    const c = data[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return String.fromCharCode(c);
  }
  return undefined;
}
