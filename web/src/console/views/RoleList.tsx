// Every role, with its policies and its live xtokens in the chosen tenant, so a role made by the API or the operator
// can be found without knowing its name. Also the role names the console's pickers offer.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useVault, type Vault } from '../session';
import { rowsOf, text, type Answer } from '../../api/client';
import { readAllPages } from '../../shared/paging';
import { QueryState, Table } from '../../shared/ui';

/** Every role, a page of RoleListAllRoles at a time (main tenant only). */
async function allRoles(vault: Vault): Promise<Answer[]> {
  return readAllPages(async (offset, limit) => {
    const answer = await vault.callMain('RoleListAllRoles', { offset, limit });
    return { total: Number(answer.total ?? 0), rows: rowsOf(answer) };
  });
}

/** Every role (main tenant only); `enabled` is false for credentials that may not read roles. */
export function useRoles(enabled = true) {
  const vault = useVault();
  return useQuery({ queryKey: ['role', 'all'], queryFn: () => allRoles(vault), enabled: enabled && vault.session.kind === 'root' });
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
