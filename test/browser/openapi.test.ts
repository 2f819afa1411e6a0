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
    const doc = (await res.json()) as { paths: Record<string, { post?: { operationId: string } }> };
    await SwaggerParser.validate(structuredClone(doc) as never);
    const listed = Object.values(doc.paths).flatMap((p) => (p.post ? [p.post.operationId] : [])).sort();
    expect(listed).toEqual(operations.map((op) => op.name).sort());
    for (const extra of ['RoleUnlinkPolicy', 'PolicyDelete', 'RoleDelete', 'TenantRotateAdminToken']) expect(listed).toContain(extra);
    expect(doc.paths['/v2/CaptchaCreate']).toMatchObject({ post: { security: [] } });
  });

  it('teaches: an intro, Users first, the probes, and per operation a summary, an example and its own answer', () => {
    const doc = buildOpenApi() as any;
    expect(doc.info.description).toMatch(/X-Bunker-Token[\s\S]*X-Bunker-Tenant[\s\S]*## The envelope[\s\S]*## Errors[\s\S]*## Durations/);
    expect(doc.tags[0]).toEqual({ name: 'Users' });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    for (const op of operations) {
      const post = doc.paths[`/v2/${op.name}`].post;
      expect(post.summary, op.name).not.toBe(op.name);
      expect(post.requestBody.content['application/json'].example, op.name).toEqual(op.example);
      const answer = post.responses['200'].content['application/json'].schema;
      expect(answer.properties.status, op.name).toEqual({ type: 'string', const: 'ok' });
    }
    // Swagger UI builds its sample from the schema when no example is given: a profile must be an object there.
    const userCreate = doc.paths['/v2/UserCreate'].post;
    expect(userCreate.requestBody.content['application/json'].schema.properties.profile.type).toBe('object');
    expect(userCreate.responses['200'].content['application/json'].schema.properties.token.description).toBeTruthy();
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
