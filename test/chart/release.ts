// The chart as the chart tests render it: its default values, its schema, and a release whose keyring, file
// store and database live outside the cluster (two api pods, the default, need them shared: no volume to claim).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { ChartRenderer, helmMerge } from './render.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const chartDir = join(repoRoot, 'charts/strongroom');
export const defaults = YAML.parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
export const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8'));
export const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
export const renderer = new ChartRenderer(chartDir);
export const external = {
  database: { url: 'postgres://vault@db:5432/vault' },
  keyring: { source: 'secret', existingSecret: 'strongroom-keyring' },
  files: { store: 's3', s3: { bucket: 'files' } },
};
/** The defaults, the external release, then `over`, merged as helm merges values files. */
export const values = (over: object = {}) => helmMerge(helmMerge(defaults, external), over);
