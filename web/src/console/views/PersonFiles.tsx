// A person's files (upload, download, delete) and shared records (a public, expiring view of chosen fields).
import { useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { objectOf, rowsOf, text } from '../../api/client';
import { ConfirmButton, CopyButton, ErrorMessage, Fields, Notice, QueryState, Table, TextField } from '../../shared/ui';
import { CappedNote, LifetimeField, lifetimeText, useLifetime } from '../../shared/lifetime';
import { FieldChoices, fieldPaths, sharedLink } from '../../shared/share';
import { download, formatTime } from '../../shared/session';

/** The file's bytes as base64, the way FileCreate takes them. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function FilesTab({ token }: { token: string }) {
  const vault = useVault();
  const client = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const list = useQuery({ queryKey: ['files', token], queryFn: () => vault.call('FileListUserFiles', { mode: 'token', identity: token }) });
  const refresh = () => client.invalidateQueries({ queryKey: ['files', token] });
  const upload = useMutation({
    mutationFn: async (file: File) => vault.call('FileCreate', { mode: 'token', identity: token, filename: file.name, filedata: await base64Of(file), ...(file.type ? { mimetype: file.type } : {}) }),
    onSuccess: async () => {
      if (input.current) input.current.value = '';
      await refresh();
    },
  });
  const get = useMutation({
    mutationFn: async (row: Record<string, unknown>) => download(await vault.callRaw('FileGet', { mode: 'token', identity: token, fileuuid: text(row.fileuuid), raw: true }), text(row.filename) || 'file'),
  });
  const remove = useMutation({ mutationFn: (uuid: string) => vault.call('FileDelete', { mode: 'token', identity: token, fileuuid: uuid }), onSuccess: refresh });
  return (
    <section aria-labelledby="files-h">
      <h2 id="files-h">Files</h2>
      <QueryState loading={list.isLoading} error={list.error} what="files" />
      <Table
        caption="Stored files"
        empty="No files."
        rows={rowsOf(list.data, 'files')}
        columns={[
          { key: 'filename', label: 'Name' },
          { key: 'mimetype', label: 'Type' },
          { key: 'size', label: 'Bytes' },
          {
            key: 'act',
            label: 'Actions',
            render: (r) => (
              <span className="actions">
                <button type="button" onClick={() => get.mutate(r)}>
                  Download
                </button>
                <ConfirmButton subject={`file ${text(r.filename)}`} label="Delete" confirmLabel="Delete file" onConfirm={() => remove.mutate(text(r.fileuuid))} />
              </span>
            ),
          },
        ]}
      />
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const file = input.current?.files?.[0];
          if (file) upload.mutate(file);
        }}
      >
        <div className="field">
          <label htmlFor="upload">File to upload</label>
          <input id="upload" ref={input} type="file" />
        </div>
        <button type="submit" className="primary" disabled={upload.isPending}>
          {upload.isPending ? 'Uploading…' : 'Upload'}
        </button>
      </form>
      <ErrorMessage error={upload.error ?? get.error ?? remove.error} />
    </section>
  );
}

export function SharedTab({ token, profile }: { token: string; profile: Record<string, unknown> }) {
  const vault = useVault();
  const [fields, setFields] = useState<string[]>([]);
  const [partner, setPartner] = useState('');
  const [lifetime, setLifetime] = useLifetime(1, 'd');
  const finaltime = lifetimeText(lifetime);
  const [lookup, setLookup] = useState('');
  const create = useMutation({
    mutationFn: () => vault.call('SharedRecordCreate', { mode: 'token', identity: token, fields, ...(partner ? { partner } : {}), finaltime: finaltime ?? '' }),
  });
  const get = useMutation({ mutationFn: () => vault.call('SharedRecordGet', { recorduuid: lookup.trim() }) });
  return (
    <section aria-labelledby="shared-h">
      <h2 id="shared-h">Shared records</h2>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <h3>Share some fields</h3>
        <FieldChoices legend="Fields to share" paths={fieldPaths(profile)} chosen={fields} onChange={setFields} />
        <div className="row">
          <TextField label="Partner" value={partner} onChange={setPartner} />
          <LifetimeField label="Expires after" value={lifetime} onChange={setLifetime} />
        </div>
        <button type="submit" className="primary" disabled={create.isPending || !fields.length || !finaltime}>
          Create shared record
        </button>
        {create.data ? (
          <Notice>
            Shared record <code>{text(create.data.recorduuid)}</code> expires {formatTime(create.data.expirationtime)}
            <CappedNote answer={create.data} expires={create.data.expirationtime} />. <CopyButton value={text(create.data.recorduuid)} what="record UUID" />{' '}
            <CopyButton value={sharedLink(text(create.data.recorduuid))} what="link for the recipient" />
          </Notice>
        ) : null}
        <ErrorMessage error={create.error} />
      </form>
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          get.mutate();
        }}
      >
        <h3>Look up a shared record</h3>
        <div className="row">
          <TextField label="Record UUID" value={lookup} onChange={setLookup} />
          <button type="submit">Look up</button>
        </div>
        {get.data ? <Fields value={objectOf(get.data.data)} label="Shared data" /> : null}
        <ErrorMessage error={get.error} />
      </form>
    </section>
  );
}
