// The API reference's introduction (the OpenAPI document's info.description): what every operation shares.
import { Messages } from '../errors.js';

export const INTRO = `A privacy data vault speaking the DatabunkerPro v2 API. Every operation is \`POST /v2/<OperationName>\`
with a JSON body (an absent body counts as \`{}\`; unknown fields are ignored; \`null\` counts as absent).

## Authentication
- \`X-Bunker-Token\`: the root token, a tenant's admin token, a role xtoken (\`XTokenCreateForRole\`, judged by the
  role's policies) or a person's login xtoken (\`XTokenCreateForUser\`, \`UserLogin\`: their own record only).
  Operations marked *no token* (login, shared records, the portal's configuration) need none.
- \`X-Bunker-Tenant\`: the tenant's name. Without it, the host's label before \`STRONGROOM_TENANT_DOMAIN\` (when
  set) names it, else the token's own tenant. The main tenant is \`main\` (id 1); only its admins reach others.

## The envelope
Every JSON answer has \`status\`: \`"ok"\` with the operation's fields beside it, or \`"error"\` with a \`message\`.
The one exception is \`FileGet\` with \`raw: true\`, which answers the file's bytes.

## Errors
| HTTP | When | Message |
|---|---|---|
| 400 | bad input | names the field, e.g. \`${Messages.missing}identity\`, \`${Messages.badMode}\` |
| 403 | no token, an unknown or expired one, or a policy's refusal | \`${Messages.accessDenied}\` |
| 404 | an unknown person, record or operation | e.g. \`${Messages.userNotFound}\` |
| 409 | a duplicate (a unique profile index, a name in use) | e.g. \`${Messages.userExists}\` |
| 413 | a body over the limit | \`${Messages.tooLarge}\` |
| 429 | too many calls (login, shared records) | \`${Messages.tooManyRequests}\` |
| 503 | the database or the tokenizer is unreachable: retry | e.g. \`${Messages.busy}\` |
| 500 | anything else (logged, never detailed) | \`${Messages.internal}\` |

## Durations
\`finaltime\` and \`slidingtime\` take \`Ns\`, \`Nh\`, \`Nd\`, \`Nm\` (a month of 31 days), \`Ny\` (365 days), a bare
integer (a Unix time when it lies in the future, else seconds), or an ISO-8601 date. Anything else is a 400 naming
the field.

## Lists
\`offset\` starts at 0; \`limit\` is 10 when absent and 100 when below 1 or above 100; \`total\` counts every match.
Lists of everyone need an \`unlockuuid\` from \`BulkListUnlock\`, valid 60 seconds.

## Examples
The examples tell one story: Ada (\`ada@example.com\`) is created by \`UserCreate\` and named by her email after.
Values the vault generates (\`unlockuuid\`, \`requestuuid\`, \`xtokenid\`, ids…) are shown as placeholders: send
the one an earlier answer gave.`;
