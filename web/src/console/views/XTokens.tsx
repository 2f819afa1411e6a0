// The xtokens of a role or of a person: listed by id and times (the vault never gives a secret back), made with the
// secret shown once, revoked by id after a confirmation.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { rowsOf, text, type Answer } from '../../api/client';
import { ConfirmButton, CopyButton, Copyable, ErrorMessage, Notice, QueryState, Table } from '../../shared/ui';
import { CappedNote, LifetimeField, lifetimeText, useLifetime } from '../../shared/lifetime';
import { formatTime } from '../../shared/session';

export interface XTokensProps {
  /** Names the list in the query cache; a revocation or a creation refreshes it. */
  queryKey: readonly unknown[];
  /** Whose xtokens these are, for headings and captions: "this role", "this person". */
  whose: string;
  list: () => Promise<Answer>;
  /** Without it the list is read-only: nothing is made or revoked here. */
  create?: ((finaltime: string) => Promise<Answer>) | undefined;
  /** Said in place of the controls when the list is read-only. */
  readOnlyReason?: string | undefined;
  /** The heading's level where the list sits: 2 in a person's tab, 4 under a role. */
  level: 2 | 4;
}

export function XTokens({ queryKey, whose, list, create, readOnlyReason, level }: XTokensProps) {
  const vault = useVault();
  const client = useQueryClient();
  const tenant = vault.session.tenant || 'the main tenant';
  const listed = useQuery({ queryKey, queryFn: list });
  const [lifetime, setLifetime] = useLifetime(1, 'h');
  const finaltime = lifetimeText(lifetime);
  const refresh = () => client.invalidateQueries({ queryKey });
  const made = useMutation({ mutationFn: (sent: string) => create!(sent), onSuccess: refresh });
  const revoke = useMutation({ mutationFn: (xtokenid: string) => vault.call('XTokenRevoke', { xtokenid }), onSuccess: refresh });
  const editable = create !== undefined;
  const headingId = `xtokens-${whose.replace(/\W+/g, '-')}-h`;
  const Heading = level === 2 ? 'h2' : 'h4';
  return (
    <section aria-labelledby={headingId}>
      <Heading id={headingId}>Xtokens</Heading>
      <p className="muted">Live xtokens of {whose} in {tenant}, by id. The vault keeps no secret to show again: a lost xtoken is revoked and replaced.</p>
      <QueryState loading={listed.isLoading} error={listed.error} what="xtokens" />
      {listed.data ? (
        <Table
          caption={`Xtokens of ${whose} (${rowsOf(listed.data).length})`}
          empty={`No live xtokens for ${whose}.`}
          rows={rowsOf(listed.data)}
          columns={[
            { key: 'xtokenid', label: 'Id', render: (r) => <Copyable value={text(r.xtokenid)} what="id" /> },
            { key: 'created', label: 'Made', render: (r) => formatTime(r.created) },
            { key: 'expires', label: 'Expires', render: (r) => (Number(r.expires) > 0 ? formatTime(r.expires) : 'never') },
            ...(editable
              ? [
                  {
                    key: 'revoke',
                    label: 'Revoke',
                    render: (r: Record<string, unknown>) => (
                      <ConfirmButton subject={`xtoken ${text(r.xtokenid)} of ${whose}`} label="Revoke" confirmLabel="Revoke it now" disabled={revoke.isPending} onConfirm={() => revoke.mutate(text(r.xtokenid))} />
                    ),
                  },
                ]
              : []),
          ]}
        />
      ) : null}
      {revoke.isSuccess ? <Notice>xtoken {revoke.variables} was revoked: it no longer signs in.</Notice> : null}
      {editable ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (finaltime) made.mutate(finaltime);
          }}
        >
          <LifetimeField label="xtoken lifetime" value={lifetime} onChange={setLifetime} />
          <button type="submit" disabled={!finaltime || made.isPending}>
            Create xtoken
          </button>
        </form>
      ) : (
        <p className="muted">{readOnlyReason}</p>
      )}
      {made.data ? (
        <Notice>
          xtoken <code>{text(made.data.xtoken)}</code>, valid until {formatTime(made.data.expires)}
          <CappedNote answer={made.data} expires={made.data.expires} /> (id {text(made.data.xtokenid)}). It is shown once: copy it now. <CopyButton value={text(made.data.xtoken)} what="xtoken" />
        </Notice>
      ) : null}
      <ErrorMessage error={listed.error ? null : (made.error ?? revoke.error)} />
    </section>
  );
}
