// Answers that are bytes, not JSON (FileGet with `raw: true`): the operation returns one, the v2 handler sends it
// (with the headers of http/raw.ts).

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
