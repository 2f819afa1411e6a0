// Tokenization: turn a value into a token, look a token up, delete it.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useVault } from '../session';
import { text } from '../../api/client';
import { ConfirmButton, CopyButton, ErrorMessage, Notice, SelectField, TextField } from '../../shared/ui';

const TYPES = [
  ['creditcard', 'Card number (format-preserving)'],
  ['unixtime', 'Unix time (format-preserving)'],
  ['email', 'Email (format-preserving)'],
  ['text', 'Other text (UUID token)'],
] as const;
type TokenType = (typeof TYPES)[number][0];

export function Tokens() {
  const vault = useVault();
  const [tokentype, setType] = useState<TokenType>('creditcard');
  const [record, setRecord] = useState('');
  const [unique, setUnique] = useState(false);
  const [lookup, setLookup] = useState('');
  const create = useMutation({ mutationFn: () => vault.call('TokenCreate', { tokentype, record, unique }) });
  const get = useMutation({ mutationFn: () => vault.call('TokenGet', { token: lookup.trim() }) });
  const remove = useMutation({ mutationFn: () => vault.call('TokenDelete', { token: lookup.trim() }) });
  return (
    <>
      <h1>Tokens</h1>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <h2>Tokenize a value</h2>
        <div className="row">
          <SelectField label="Kind of value" value={tokentype} onChange={(v) => setType(v as TokenType)} options={TYPES.map(([v, l]) => [v, l] as [string, string])} />
          <TextField label="Value" value={record} onChange={setRecord} required />
        </div>
        <div className="field">
          <label>
            <input type="checkbox" checked={unique} onChange={(e) => setUnique(e.target.checked)} /> The same value always gets the same token
          </label>
        </div>
        <button type="submit" className="primary" disabled={!record || create.isPending}>
          Tokenize
        </button>
        {create.data ? (
          <Notice>
            Token <code>{text(create.data.tokenbase)}</code> (id <code>{text(create.data.tokenuuid)}</code>) <CopyButton value={text(create.data.tokenbase)} what="token" /> <CopyButton value={text(create.data.tokenuuid)} what="token id" />
          </Notice>
        ) : null}
        <ErrorMessage error={create.error} />
      </form>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          remove.reset();
          get.mutate();
        }}
      >
        <h2>Look up or delete a token</h2>
        <TextField label="Token (tokenbase or tokenuuid)" value={lookup} onChange={setLookup} required />
        <div className="actions">
          <button type="submit" className="primary" disabled={!lookup.trim()}>
            Look up
          </button>
          <ConfirmButton label="Delete token" subject={lookup.trim()} confirmLabel="Delete the token for good" disabled={!lookup.trim()} onConfirm={() => remove.mutate()}>
            <p>The value behind this token can no longer be looked up. This cannot be undone.</p>
          </ConfirmButton>
        </div>
        {get.data && !remove.data ? (
          <dl className="props">
            <dt>Value</dt>
            <dd>{text(get.data.record)}</dd>
            <dt>Kind</dt>
            <dd>{text(get.data.tokentype)}</dd>
            <dt>Token</dt>
            <dd>{text(get.data.tokenbase)}</dd>
          </dl>
        ) : null}
        {remove.data ? <Notice>Token deleted.</Notice> : null}
        <ErrorMessage error={get.error ?? remove.error} />
      </form>
    </>
  );
}
