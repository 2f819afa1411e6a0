// Tenants (main tenant only): list, create (the admin token is shown once), rename, rotate the admin token, delete.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { rowsOf, text } from '../../api/client';
import { ConfirmButton, CopyButton, ErrorMessage, Notice, QueryState, Table, TextField } from '../../shared/ui';

export function Tenants() {
  const vault = useVault();
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['tenants'], queryFn: () => vault.call('TenantListTenants', {}) });
  const [tenantname, setName] = useState('');
  const [tenantorg, setOrg] = useState('');
  const [secret, setSecret] = useState<{ tenant: string; xtoken: string } | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ['tenants'] });
  const create = useMutation({
    mutationFn: () => vault.call('TenantCreate', { tenantname: tenantname.trim(), tenantorg: tenantorg.trim() }),
    onSuccess: async (a) => {
      setSecret({ tenant: tenantname.trim(), xtoken: text(a.xtoken) });
      setName('');
      setOrg('');
      await refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (row: Record<string, unknown>) => vault.call('TenantRotateAdminToken', { tenantid: Number(row.tenantid) }).then((a) => ({ a, name: text(row.tenantname) })),
    onSuccess: ({ a, name }) => setSecret({ tenant: name, xtoken: text(a.xtoken) }),
  });
  const remove = useMutation({ mutationFn: (id: number) => vault.call('TenantDelete', { tenantid: id }), onSuccess: refresh });
  return (
    <>
      <h1>Tenants</h1>
      <QueryState loading={list.isLoading} error={list.error} what="tenants" />
      <Table
        caption="Tenants"
        empty="No tenants."
        rows={rowsOf(list.data)}
        columns={[
          { key: 'tenantid', label: 'Id' },
          { key: 'tenantname', label: 'Name' },
          { key: 'tenantorg', label: 'Organisation' },
          {
            key: 'act',
            label: 'Actions',
            render: (r) =>
              Number(r.tenantid) === 1 ? (
                <span className="muted">main tenant</span>
              ) : (
                <span className="actions">
                  <ConfirmButton subject={`of ${text(r.tenantname)}`} label="Rotate admin token" confirmLabel="Replace the admin token" onConfirm={() => rotate.mutate(r)} />
                  <ConfirmButton subject={`tenant ${text(r.tenantname)}`} label="Delete" confirmLabel="Delete tenant and all its data" onConfirm={() => remove.mutate(Number(r.tenantid))} />
                </span>
              ),
          },
        ]}
      />
      {secret ? (
        <Notice>
          Admin token of {secret.tenant}: <code>{secret.xtoken}</code>. It is shown once: copy it now. <CopyButton value={secret.xtoken} what="admin token" />
        </Notice>
      ) : null}
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <h2>New tenant</h2>
        <div className="row">
          <TextField label="Tenant name" value={tenantname} onChange={setName} required />
          <TextField label="Organisation" value={tenantorg} onChange={setOrg} required />
        </div>
        <button type="submit" className="primary" disabled={!tenantname.trim() || !tenantorg.trim() || create.isPending}>
          Create tenant
        </button>
      </form>
      <ErrorMessage error={create.error ?? rotate.error ?? remove.error} />
    </>
  );
}
