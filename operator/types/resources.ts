// The Tenant and Role custom resources as the operator reads them: specs checked once with zod (the CRD schema
// already holds them to the same rules, this guards against a CRD that is older than the operator).
import { z } from 'zod';
import type { k8s } from '../kube.js';
import { DURATION_FORMS, parseDuration } from './duration.js';

const SecretName = z.string().min(1).max(253).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
const DnsLabel = z.string().min(1).max(63).regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
export const Duration = z.string().refine((text) => parseDuration(text) !== undefined, DURATION_FORMS);
const DeletionPolicy = z.enum(['Retain', 'Delete']).default('Retain');

export const TenantSpec = z.object({
  tenantName: z.string().min(1).max(63).regex(/^[a-z0-9]+$/, 'lowercase letters and digits only'),
  organisation: z.string().min(1).max(256),
  email: z.string().max(256).optional(),
  /** The label of the tenant's own key-encryption key in the vault's HSM (pkcs11 custody): passed to the vault as `kek`. */
  kek: z.string().min(1).max(128).regex(/^[\x20-\x7e]+$/, 'printable ASCII').optional(),
  adminTokenSecretName: SecretName,
  deletionPolicy: DeletionPolicy,
});
export type TenantSpec = z.infer<typeof TenantSpec>;

export const RoleSpec = z.object({
  tenantRef: z.object({ name: z.string().min(1).max(253) }),
  roleName: DnsLabel,
  description: z.string().max(1024).default(''),
  policies: z
    .array(z.object({ name: DnsLabel, description: z.string().max(1024).default(''), document: z.record(z.string(), z.unknown()) }))
    .min(1)
    .max(32)
    .refine((ps) => new Set(ps.map((p) => p.name)).size === ps.length, 'policy names must be unique'),
  xtoken: z.object({ secretName: SecretName, lifetime: Duration.default('1h'), rotateBefore: Duration.default('10min') }),
  deletionPolicy: DeletionPolicy,
});
export type RoleSpec = z.infer<typeof RoleSpec>;

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface CommonStatus {
  observedGeneration?: number;
  conditions?: Condition[];
}

export interface TenantStatus extends CommonStatus {
  tenantId?: number;
  tenantName?: string;
  adminTokenSecretName?: string;
}

export interface RoleStatus extends CommonStatus {
  roleId?: number;
  tenantId?: number;
  policies?: { name: string; policyId: number }[];
  xtoken?: { secretName: string; expiresAt: string; rotateAt: string };
}

export interface Resource<Status extends CommonStatus = CommonStatus> {
  apiVersion: string;
  kind: string;
  metadata: k8s.V1ObjectMeta & { name: string; namespace: string; uid: string; resourceVersion: string };
  spec: unknown;
  status?: Status;
}

export type Tenant = Resource<TenantStatus>;
export type Role = Resource<RoleStatus>;

/** Seconds in a CRD duration the spec has already checked (`90s`, `10min`, `2h`, `7d`; `m` is a 31-day month). */
export function durationSeconds(text: string): number {
  return parseDuration(text)!;
}
