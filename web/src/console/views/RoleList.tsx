// Every role, with its policies and its live xtokens in the chosen tenant, so a role made by the API or the operator
// can be found without knowing its name. Also the role names the console's pickers offer.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useVault, type Vault } from '../session';
import { ApiError, rowsOf, text, type Answer } from '../../api/client';
import { QueryState, Table } from '../../shared/ui';

/** Ids asked for at once while walking the roles. */
const BATCH = 16;

/**
 * The API has no list of roles (RoleGet takes one id or name), so the console walks role ids upward, a batch at a
 * time, until a whole batch is unknown. Ids are never reused, so a gap of deleted roles as long as a batch ends the
 * walk early: a `RoleListAllRoles` operation would replace this (noted for the API's owners).
 */
async function walkRoles(vault: Vault): Promise<Answer[]> {
  const roles: Answer[] = [];
  for (let first = 1; ; first += BATCH) {
    const batch = await Promise.all(
      Array.from({ length: BATCH }, (_, i) =>
        vault.callMain('RoleGet', { roleid: first + i }).catch((err: unknown) => {
          if (err instanceof ApiError && err.httpStatus === 404) return null;
          throw err;
        }),
      ),
    );
    const found = batch.filter((r): r is Answer => r !== null);
    if (!found.length) return roles;
    roles.push(...found);
  }
}

/** Every role (main tenant only); `enabled` is false for credentials that may not read roles. */
export function useRoles(enabled = true) {
  const vault = useVault();
  return useQuery({ queryKey: ['role', 'all'], queryFn: () => walkRoles(vault), enabled: enabled && vault.session.kind === 'root' });
}

/** The role names for a picker, sorted; empty while loading or for a credential that may not read roles. */
export function useRoleNames(): string[] {
  const roles = useRoles();
  return (roles.data ?? []).map((r) => text(r.rolename)).sort((a, b) => a.localeCompare(b));
}

function LiveXTokens({ roleid }: { roleid: number }) {
  const vault = useVault();
  const list = useQuery({ queryKey: ['xtokens', 'role', vault.session.tenant, roleid], queryFn: () => vault.call('XTokenListForRole', { roleid }) });
  if (list.isError) return <span className="muted">—</span>;
  return <span>{list.data ? rowsOf(list.data).length : '…'}</span>;
}

export function RoleList() {
  const vault = useVault();
  const roles = useRoles();
  const tenant = vault.session.tenant || 'the main tenant';
  return (
    <>
      <QueryState loading={roles.isLoading} error={roles.error} what="roles" />
      {roles.data ? (
        <Table
          caption={`Roles (${roles.data.length}); live xtokens counted in ${tenant}`}
          empty="No roles yet."
          rows={roles.data}
          columns={[
            { key: 'rolename', label: 'Role', render: (r) => <Link to={`/access/roles/${encodeURIComponent(text(r.rolename))}`}>{text(r.rolename)}</Link> },
            { key: 'roledesc', label: 'Description' },
            { key: 'policies', label: 'Policies', render: (r) => rowsOf(r, 'policies').map((p) => text(p.policyname)).join(', ') || <span className="muted">none</span> },
            { key: 'xtokens', label: 'Live xtokens', render: (r) => <LiveXTokens roleid={Number(r.roleid)} /> },
            { key: 'managedby', label: 'Managed by', render: (r) => (r.managedby ? <code>{text(r.managedby)}</code> : 'console or API') },
          ]}
        />
      ) : null}
    </>
  );
}
