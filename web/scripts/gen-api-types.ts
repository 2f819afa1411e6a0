// Writes web/src/api/requests.gen.ts from the vault's OpenAPI document: `npx tsx web/scripts/gen-api-types.ts`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from '../../api/http/openapi.js';
import { renderRequestTypes } from './api-types.js';

export const GENERATED = fileURLToPath(new URL('../src/api/requests.gen.ts', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED, renderRequestTypes(buildOpenApi()));
  console.log(`wrote ${GENERATED}`);
}
