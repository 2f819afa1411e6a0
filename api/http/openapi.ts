// The OpenAPI 3.1 document of /v2, built from the operation registry: every served operation with its summary, its
// input and output schemas and a working example.
import { z } from 'zod';
import type { Context } from 'koa';
import { operations } from '../ops/index.js';
import type { OpDefinition } from '../ops/define.js';
import { INTRO } from './openapi-intro.js';

type JsonObject = Record<string, unknown>;

/** Who may call an operation, as the reference page says it. */
const ACCESS_NOTE: Record<OpDefinition['access'], string> = {
  public: 'Public: no token.',
  tenant: 'Any credential of the tenant (role xtokens as their policies allow; login xtokens for their own record where allowed).',
  admin: 'The root token or the tenant admin token.',
  mainTenant: 'Admins of the main tenant only.',
};

/** The area an operation belongs to, for grouping: the folder its file lives in is not visible here, the name is. */
const AREAS: [RegExp, string][] = [
  [/^(Captcha|UserPrelogin|UserLogin$|UserLogout$)/, 'Login'],
  [/^(User\w*Request|UserRequest|BulkListAllUserRequests|AppdataUpdateRequest|AgreementCancelRequest)/, 'Requests'],
  [/^Bulk(ListUnlock|ListUsers|ListAllUsers)$/, 'Bulk'],
  [/^(User|SystemGetUserReport|SystemGetUserHTMLReport)/, 'Users'],
  [/^Appdata/, 'App data'],
  [/^(Audit|BulkListAllAuditEvents)/, 'Audit'],
  [/^(Token|BulkListTokens|BulkDeleteTokens)/, 'Tokens'],
  [/^Tenant/, 'Tenants'],
  [/^(Group|BulkListGroupUsers)/, 'Groups'],
  [/^(Role|Policy|XToken)/, 'Access'],
  [/^(LegalBasis|Agreement)/, 'Consent'],
  [/^ProcessingActivity/, 'Processing activities'],
  [/^Session/, 'Sessions'],
  [/^SharedRecord/, 'Shared records'],
  [/^(File|BulkListFilesByTag)/, 'Files'],
  [/^System/, 'System'],
  [/^(Event|Erasure)/, 'Privacy events'],
];

/** Operations served beyond the DatabunkerPro v2 contract. */
export const EXTRA_OPERATIONS = ['AuditVerify', 'PolicyDelete', 'PolicyExplain', 'RoleDelete', 'RoleGet', 'RoleUnlinkPolicy', 'SharedRecordDelete', 'SharedRecordListUserRecords', 'SystemGetKeyringStatus', 'SystemResplitRecoveryKey', 'SystemRotateMasterKey', 'TenantRotateAdminToken', 'XTokenListForRole', 'XTokenListForUser', 'XTokenRevoke', 'EventSubscriptionCreate', 'EventSubscriptionList', 'EventSubscriptionUpdate', 'EventSubscriptionDelete', 'EventSubscriptionTest', 'EventDeliveryList', 'EventReplay', 'ErasureConfirm', 'ErasureStatusGet', 'ErasureReceiptGet'];

export function areaOf(name: string): string {
  return AREAS.find(([re]) => re.test(name))?.[1] ?? 'Other';
}

/** The JSON Schema of what the operation accepts (its zod input, as a client sends it). */
export function inputSchema(op: OpDefinition): JsonObject {
  return jsonSchema(op.input, 'input');
}

/**
 * The answer's envelope around the operation's own fields. `warnings` may ride on any answer (unknown fields sent,
 * for one); every other field is the operation's, and none beyond them.
 */
const Envelope = z.object({
  status: z.literal('ok'),
  warnings: z.array(z.string()).optional().meta({ description: 'What the vault noticed but did not refuse.' }),
});

/** The JSON Schema of what the operation answers with HTTP 200: the envelope and its output. */
export function outputSchema(op: OpDefinition): JsonObject {
  return jsonSchema(op.output.extend(Envelope.shape), 'output');
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonObject;
  delete out.$schema;
  return out;
}

const envelope = {
  Error: {
    type: 'object',
    required: ['status', 'message'],
    properties: { status: { const: 'error' }, message: { type: 'string', description: 'The reason, in the contract’s words.' } },
  },
};

const ERRORS: Record<string, string> = {
  '400': 'Bad input; the message names the field.',
  '403': 'Access denied.',
  '404': 'Not found.',
  '409': 'Duplicate index.',
  '413': 'Body over the limit.',
  '500': 'Internal error.',
  '503': 'The database or the tokenizer is unreachable: retry.',
};

/** Users first, then the rest by name: the order a newcomer reads in. */
const TAG_ORDER = ['Users', 'Login', 'Consent', 'App data', 'Requests', 'Files', 'Sessions', 'Shared records', 'Tokens', 'Groups', 'Bulk', 'Audit', 'Privacy events', 'Access', 'Tenants', 'System', 'Processing activities', 'Health'];

const rank = (tag: string) => (TAG_ORDER.includes(tag) ? TAG_ORDER.indexOf(tag) : TAG_ORDER.length);

function tagOrder(names: string[]): { name: string }[] {
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((name) => ({ name }));
}

function operationPath(op: OpDefinition): JsonObject {
  const extra = EXTRA_OPERATIONS.includes(op.name);
  const raw = op.name === 'FileGet' ? ' With `raw: true` the answer is the file itself, with its `Content-Type`.' : '';
  return {
    post: {
      operationId: op.name,
      tags: [areaOf(op.name)],
      summary: op.summary,
      description: `${ACCESS_NOTE[op.access]}${extra ? ' Served beyond the DatabunkerPro v2 contract.' : ''}${raw}`,
      ...(op.access === 'public' ? { security: [] } : {}),
      requestBody: { required: false, content: { 'application/json': { schema: inputSchema(op), example: op.example } } },
      responses: {
        '200': { description: 'Done.', content: { 'application/json': { schema: outputSchema(op) } } },
        ...Object.fromEntries(Object.keys(ERRORS).map((code) => [code, { $ref: `#/components/responses/Error${code}` }])),
      },
    },
  };
}

const Check = { type: 'string', enum: ['ok', 'unavailable'] };
const READY = {
  type: 'object',
  required: ['status', 'database', 'tokenizer', 'keyring'],
  properties: {
    status: { enum: ['ok', 'error'] },
    database: { ...Check, description: 'The database answers.' },
    tokenizer: { ...Check, description: 'The tokenizer process answers.' },
    keyring: { type: 'string', description: 'The database opens under the tokenizer’s keyring: `ok`, `migrating` while a legacy database is upgraded, else why not.' },
    migration: { description: 'While a legacy database is upgraded: its progress.' },
  },
};

/** The two probes beside the API, for load balancers and Kubernetes. */
const HEALTH: JsonObject = {
  '/healthz': {
    get: {
      operationId: 'healthz',
      tags: ['Health'],
      summary: 'Alive: the process answers (no check of its dependencies)',
      security: [],
      responses: { '200': { description: 'Alive.', content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } }, additionalProperties: false } } } } },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      tags: ['Health'],
      summary: 'Ready: the database, the tokenizer and its keyring answer',
      security: [],
      responses: Object.fromEntries(
        [['200', 'Ready.'], ['503', 'Not ready: the body says which part is not.']].map(([code, description]) => [code, { description, content: { 'application/json': { schema: READY } } }]),
      ),
    },
  },
};

export function buildOpenApi(): JsonObject {
  const paths: JsonObject = {};
  // Swagger UI lists a section's operations in the document's order: by section, then the section's own operations
  // before the System ones filed with it (UserCreate before SystemGetUserReport), then by name.
  const key = (op: OpDefinition) => [rank(areaOf(op.name)), op.name.startsWith('System') ? 1 : 0] as const;
  const ordered = [...operations].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1] - kb[1] || a.name.localeCompare(b.name);
  });
  for (const op of ordered) paths[`/v2/${op.name}`] = operationPath(op);
  Object.assign(paths, HEALTH);
  return {
    openapi: '3.1.0',
    info: { title: 'Strongroom', version: '2', description: INTRO },
    servers: [{ url: '/' }],
    security: [{ token: [], tenant: [] }, { token: [] }],
    tags: tagOrder([...operations.map((op) => areaOf(op.name)), 'Health']),
    paths,
    components: {
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'X-Bunker-Token', description: 'The root token, a tenant admin token, a role xtoken or a login xtoken.' },
        tenant: { type: 'apiKey', in: 'header', name: 'X-Bunker-Tenant', description: 'The tenant’s name (else the host’s label before STRONGROOM_TENANT_DOMAIN, else the token’s own tenant).' },
      },
      schemas: envelope,
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([code, description]) => [`Error${code}`, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }]),
      ),
    },
  };
}

let cached: { json: string; yaml: string | null } | undefined;

async function rendered(): Promise<{ json: string; yaml: string | null }> {
  if (cached) return cached;
  const doc = buildOpenApi();
  let yaml: string | null = null;
  try {
    // `yaml` is a development dependency: a production install without it serves the JSON document only.
    const { stringify } = await import('yaml');
    yaml = stringify(doc, { aliasDuplicateObjects: false });
  } catch {
    yaml = null;
  }
  cached = { json: JSON.stringify(doc, null, 2), yaml };
  return cached;
}

export async function serveOpenApiJson(ctx: Context): Promise<void> {
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-cache');
  ctx.body = (await rendered()).json;
}

export async function serveOpenApiYaml(ctx: Context): Promise<void> {
  const { json, yaml } = await rendered();
  ctx.set('Cache-Control', 'no-cache');
  // JSON is YAML too: without the yaml package the same document is served in its JSON spelling.
  ctx.type = 'application/yaml';
  ctx.body = yaml ?? json;
}
