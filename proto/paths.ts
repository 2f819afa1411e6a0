// Where the api and the tokenizer meet when nothing else is said: the tokenizer's unix socket under the data
// directory. One definition for the tokenizer that binds it, the api that dials it and the supervisor that
// prepares its directory.
import { join, resolve } from 'node:path';

/** STRONGROOM_TOKENIZER_SOCKET, or `<data dir>/run/tokenizer.sock` (data dir: STRONGROOM_DATA_DIR or ./data), absolute. */
export function tokenizerSocketPath(env: { STRONGROOM_DATA_DIR?: string | undefined; STRONGROOM_TOKENIZER_SOCKET?: string | undefined }): string {
  const dataDir = resolve(env.STRONGROOM_DATA_DIR || './data');
  return resolve(env.STRONGROOM_TOKENIZER_SOCKET || join(dataDir, 'run', 'tokenizer.sock'));
}
