// The operator's RBAC rules as the chart grants them, read from charts/strongroom/templates/_helpers.tpl.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { PolicyRule } from './kube-double/authz.js';

export const HELPERS = fileURLToPath(new URL('../../charts/strongroom/templates/_helpers.tpl', import.meta.url));

function block(text: string, name: string): string {
  const m = new RegExp(`\\{\\{- define "${name.replace(/\./g, '\\.')}" \\}\\}\\n([\\s\\S]*?)\\{\\{- end \\}\\}`).exec(text);
  if (!m) throw new Error(`no define "${name}" in ${HELPERS}`);
  return m[1]!;
}

/** Rules in the watched namespaces, and rules for the Lease in the release namespace. */
export function chartOperatorRules(leaseName: string): { watched: PolicyRule[]; lease: PolicyRule[] } {
  const text = readFileSync(HELPERS, 'utf8');
  const watched = YAML.parse(block(text, 'strongroom.operator.rules')) as PolicyRule[];
  const leaseText = block(text, 'strongroom.operator.leaseRules').replace('{{ include "strongroom.leaseName" . }}', leaseName);
  if (leaseText.includes('{{')) throw new Error('the lease rules hold template logic the test cannot read');
  return { watched, lease: YAML.parse(leaseText) as PolicyRule[] };
}
