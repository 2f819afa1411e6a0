// Production values must send audit checkpoints outside the database (N5): a trail cut short (its last events
// deleted, its head moved back) is found against checkpoints the database's writers cannot reach, and the
// tokenizer's record of the newest head lives on a pod's own volume (a replaced pod starts without it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { helmMerge } from './render.js';
import { renderer, repoRoot, validate, values } from './release.js';

const production = YAML.parse(readFileSync(join(repoRoot, 'charts/strongroom/examples/values-production.yaml'), 'utf8'));
const apiEnv = (v: object) => {
  const spec = renderer.manifest('api-deployment.yaml', v).spec.template.spec;
  const api = spec.containers.find((c: { name: string }) => c.name === 'api') as { env: { name: string; value?: string }[] };
  return new Map(api.env.map((e) => [e.name, e.value]));
};

describe('audit checkpoint targets', () => {
  it('the production example sends checkpoints to a bucket under Object Lock, and requires a target', () => {
    const v = values(production);
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    const env = apiEnv(v);
    expect(env.get('STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET')).toBeTruthy();
    expect(env.get('STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK')).toBe('on');
    expect(production.auditCheckpoints.requireTarget).toBe(true);
  });

  it('refuses to render a release that requires a target and has none', () => {
    const without = helmMerge(values(production), { auditCheckpoints: { s3: { bucket: '' } } });
    expect(() => apiEnv(without)).toThrow(/auditCheckpoints.requireTarget/);
    // A claim outside the database is a target too.
    const claim = helmMerge(without, { auditCheckpoints: { persistence: { existingClaim: 'audit-checkpoints' } } });
    expect(apiEnv(claim).get('STRONGROOM_AUDIT_CHECKPOINT_DIR')).toBeTruthy();
  });
});
