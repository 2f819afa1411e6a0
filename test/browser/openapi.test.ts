// /openapi.json validates as OpenAPI 3.1 and lists every operation of the registry; the pages' types are current.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { operations } from '../../api/ops/index.js';
import { buildOpenApi } from '../../api/http/openapi.js';
import { renderRequestTypes } from '../../web/scripts/api-types.js';
import { GENERATED } from '../../web/scripts/gen-api-types.js';
import { startVault, type TestVault } from '../fixtures/vault.js';

let vault: TestVault;
beforeAll(async () => {
  vault = await startVault();
});
afterAll(async () => {
  await vault?.stop();
});

describe('the OpenAPI document', () => {
  it('validates and lists every registered operation, the extras beyond the contract included', async () => {
    const res = await fetch(`${vault.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, { post: { operationId: string } }> };
    await SwaggerParser.validate(structuredClone(doc) as never);
    const listed = Object.values(doc.paths).map((p) => p.post.operationId).sort();
    expect(listed).toEqual(operations.map((op) => op.name).sort());
    for (const extra of ['RoleUnlinkPolicy', 'PolicyDelete', 'RoleDelete', 'TenantRotateAdminToken']) expect(listed).toContain(extra);
    expect(doc.paths['/v2/CaptchaCreate']).toMatchObject({ post: { security: [] } });
  });

  it('is served as YAML too', async () => {
    const res = await fetch(`${vault.url}/openapi.yml`);
    expect(res.status).toBe(200);
    const { parse } = await import('yaml');
    expect(parse(await res.text())).toEqual(buildOpenApi());
  });

  it('matches the request types the pages are compiled against (regenerate with npx tsx web/scripts/gen-api-types.ts)', () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(renderRequestTypes(buildOpenApi()));
  });
});
