// Legal bases (why data is processed) and processing activities (what is done, on which bases).
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVault } from '../session';
import { rowsOf, text } from '../../api/client';
import { ConfirmButton, ErrorMessage, QueryState, SelectField, Table, TextField } from '../../shared/ui';

const BASIS_TYPES = ['consent', 'contract', 'legal-requirement', 'legitimate-interest', 'public-interest', 'vital-interest'] as const;

export function Consent() {
  return (
    <>
      <h1>Consent</h1>
      <LegalBases />
      <Activities />
    </>
  );
}

function LegalBases() {
  const vault = useVault();
  const client = useQueryClient();
  const key = ['legalbases', vault.session.tenant];
  const list = useQuery({ queryKey: key, queryFn: () => vault.call('LegalBasisListAgreements', {}) });
  const [brief, setBrief] = useState('');
  const [shortdesc, setShortdesc] = useState('');
  const [fulldesc, setFulldesc] = useState('');
  const [basistype, setBasistype] = useState<string>('consent');
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const create = useMutation({
    mutationFn: () => vault.call('LegalBasisCreate', { brief: brief.trim(), shortdesc, fulldesc, basistype, usercontrol: true }),
    onSuccess: async () => {
      setBrief('');
      setShortdesc('');
      setFulldesc('');
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: (b: string) => vault.call('LegalBasisDelete', { brief: b }), onSuccess: refresh });
  const revoke = useMutation({ mutationFn: (b: string) => vault.call('AgreementRevokeAll', { brief: b }), onSuccess: refresh });
  return (
    <section className="card" aria-labelledby="lb-h">
      <h2 id="lb-h">Legal bases</h2>
      <QueryState loading={list.isLoading} error={list.error} what="legal bases" />
      <Table
        caption="Legal bases"
        empty="No legal bases yet."
        rows={rowsOf(list.data)}
        columns={[
          { key: 'brief', label: 'Brief' },
          { key: 'basistype', label: 'Type' },
          { key: 'shortdesc', label: 'Description' },
          { key: 'status', label: 'Status' },
          {
            key: 'act',
            label: 'Actions',
            render: (r) => (
              <span className="actions">
                <ConfirmButton subject={`agreements to ${text(r.brief)}`} label="Revoke all" confirmLabel="Revoke every agreement" onConfirm={() => revoke.mutate(text(r.brief))} />
                <ConfirmButton subject={`legal basis ${text(r.brief)}`} label="Delete" confirmLabel="Delete legal basis" onConfirm={() => remove.mutate(text(r.brief))} />
              </span>
            ),
          },
        ]}
      />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <h3>New legal basis</h3>
        <div className="row">
          <TextField label="Brief" value={brief} onChange={setBrief} hint="lowercase letters, digits and -" required />
          <SelectField label="Type" value={basistype} onChange={setBasistype} options={BASIS_TYPES} />
          <TextField label="Short description" value={shortdesc} onChange={setShortdesc} />
        </div>
        <TextField label="Explanation shown to people" value={fulldesc} onChange={setFulldesc} />
        <button type="submit" className="primary" disabled={!brief.trim() || create.isPending}>
          Create legal basis
        </button>
      </form>
      <ErrorMessage error={create.error ?? remove.error ?? revoke.error} />
    </section>
  );
}

function Activities() {
  const vault = useVault();
  const client = useQueryClient();
  const key = ['activities', vault.session.tenant];
  const list = useQuery({ queryKey: key, queryFn: () => vault.call('ProcessingActivityListActivities', {}) });
  const bases = useQuery({ queryKey: ['legalbases', vault.session.tenant], queryFn: () => vault.call('LegalBasisListAgreements', {}) });
  const briefs = rowsOf(bases.data).map((r) => text(r.brief));
  const [activity, setActivity] = useState('');
  const [title, setTitle] = useState('');
  const [link, setLink] = useState<{ activity: string; brief: string }>({ activity: '', brief: '' });
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const create = useMutation({
    mutationFn: () => vault.call('ProcessingActivityCreate', { activity: activity.trim(), title }),
    onSuccess: async () => {
      setActivity('');
      setTitle('');
      await refresh();
    },
  });
  const linkBasis = useMutation({ mutationFn: (l: { activity: string; brief: string }) => vault.call('ProcessingActivityLinkLegalBasis', l), onSuccess: refresh });
  const unlink = useMutation({ mutationFn: (l: { activity: string; brief: string }) => vault.call('ProcessingActivityUnlinkLegalBasis', l), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (a: string) => vault.call('ProcessingActivityDelete', { activity: a }), onSuccess: refresh });
  const rows = rowsOf(list.data);
  const activities = rows.map((r) => text(r.activity));
  return (
    <section className="card" aria-labelledby="pa-h">
      <h2 id="pa-h">Processing activities</h2>
      <QueryState loading={list.isLoading} error={list.error} what="processing activities" />
      <Table
        caption="Processing activities"
        empty="No processing activities yet."
        rows={rows}
        columns={[
          { key: 'activity', label: 'Activity' },
          { key: 'title', label: 'Title' },
          {
            key: 'legalbasis',
            label: 'Legal bases',
            render: (r) =>
              (Array.isArray(r.legalbasis) ? (r.legalbasis as string[]) : []).map((b) => (
                <button key={b} type="button" className="tag" aria-label={`Unlink ${b} from ${text(r.activity)}`} onClick={() => unlink.mutate({ activity: text(r.activity), brief: b })}>
                  {b} ✕
                </button>
              )),
          },
          { key: 'del', label: 'Actions', render: (r) => <ConfirmButton subject={`activity ${text(r.activity)}`} label="Delete" confirmLabel="Delete activity" onConfirm={() => remove.mutate(text(r.activity))} /> },
        ]}
      />
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField label="Activity" value={activity} onChange={setActivity} required />
        <TextField label="Title" value={title} onChange={setTitle} />
        <button type="submit" className="primary" disabled={!activity.trim()}>
          Create activity
        </button>
      </form>
      {activities.length && briefs.length ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            linkBasis.mutate({ activity: link.activity || activities[0]!, brief: link.brief || briefs[0]! });
          }}
        >
          <SelectField label="Link activity" value={link.activity || activities[0]!} onChange={(v) => setLink({ ...link, activity: v })} options={activities} />
          <SelectField label="to legal basis" value={link.brief || briefs[0]!} onChange={(v) => setLink({ ...link, brief: v })} options={briefs} />
          <button type="submit">Link</button>
        </form>
      ) : null}
      <ErrorMessage error={create.error ?? linkBasis.error ?? unlink.error ?? remove.error} />
    </section>
  );
}
