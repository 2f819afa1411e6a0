// The OpenAPI 3.1 document of /v2, built from the operation registry: every served operation, its input schema.
import { z } from 'zod';
import type { Context } from 'koa';
import { operations } from '../ops/index.js';
import type { OpDefinition } from '../ops/define.js';

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
  [/^(Captcha|UserPrelogin|UserLogin$)/, 'Login'],
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
];

/** Operations served beyond the DatabunkerPro v2 contract. */
export const EXTRA_OPERATIONS = ['AuditVerify', 'PolicyDelete', 'PolicyExplain', 'RoleDelete', 'RoleGet', 'RoleUnlinkPolicy', 'SharedRecordDelete', 'SharedRecordListUserRecords', 'SystemGetKeyringStatus', 'SystemResplitRecoveryKey', 'SystemRotateMasterKey', 'TenantRotateAdminToken', 'XTokenListForRole', 'XTokenListForUser', 'XTokenRevoke'];

export function areaOf(name: string): string {
  return AREAS.find(([re]) => re.test(name))?.[1] ?? 'Other';
}

/** The JSON Schema of what the operation accepts (its zod input, as a client sends it). */
export function inputSchema(op: OpDefinition): JsonObject {
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonObject;
  delete schema.$schema;
  return schema;
}

const envelope = {
  Ok: {
    type: 'object',
    required: ['status'],
    properties: { status: { const: 'ok' } },
    additionalProperties: true,
  },
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
};

export function buildOpenApi(): JsonObject {
  const paths: JsonObject = {};
  for (const op of [...operations].sort((a, b) => a.name.localeCompare(b.name))) {
    const extra = EXTRA_OPERATIONS.includes(op.name);
    paths[`/v2/${op.name}`] = {
      post: {
        operationId: op.name,
        tags: [areaOf(op.name)],
        summary: op.name,
        description: `${ACCESS_NOTE[op.access]}${extra ? ' Served beyond the DatabunkerPro v2 contract.' : ''}`,
        ...(op.access === 'public' ? { security: [] } : {}),
        requestBody: { required: false, content: { 'application/json': { schema: inputSchema(op) } } },
        responses: {
          '200': { description: 'Done (and, for some public operations, a contract error with HTTP 200).', content: { 'application/json': { schema: { $ref: '#/components/schemas/Ok' } } } },
          ...Object.fromEntries(Object.keys(ERRORS).map((code) => [code, { $ref: `#/components/responses/Error${code}` }])),
        },
      },
    };
  }
  const tags = [...new Set(operations.map((op) => areaOf(op.name)))].sort().map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Strongroom',
      version: '2',
      description: 'A privacy data vault speaking the DatabunkerPro v2 API: `POST /v2/<OperationName>`, JSON in and out, `status` always present.',
    },
    servers: [{ url: '/' }],
    security: [{ token: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'X-Bunker-Token' },
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
