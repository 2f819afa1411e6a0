// One user request: what it asks for (as a diff against the data it would replace), approve or cancel it.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useVault } from '../session';
import { objectOf, text } from '../../api/client';
import { ConfirmButton, DiffView, ErrorMessage, JsonBlock, Notice, QueryState, personLabel } from '../../shared/ui';
import { diffJson } from '../../shared/diff';
import { applyMergePatch } from '../../shared/merge';
import { applyPatch, type Operation } from 'fast-json-patch';
import { PersonName, usePerson } from './Requests';

export function RequestDetail({ requestuuid, onDone }: { requestuuid: string; onDone?: () => void }) {
  const vault = useVault();
  const client = useQueryClient();
  const detail = useQuery({ queryKey: ['request', requestuuid], queryFn: () => vault.call('UserRequestGet', { requestuuid }) });
  const request = objectOf(detail.data?.request);
  // An approved erasure takes the person's requests with them: the outcome is shown from the answer, not re-read.
  const [decided, setDecided] = useState<'approved' | 'canceled' | null>(null);
  const settle = (outcome: 'approved' | 'canceled') => async () => {
    setDecided(outcome);
    await client.invalidateQueries({ queryKey: ['requests'] });
    onDone?.();
  };
  const approve = useMutation({ mutationFn: () => vault.call('UserRequestApprove', { requestuuid, reason: 'approved in the console' }), onSuccess: settle('approved') });
  const cancel = useMutation({ mutationFn: () => vault.call('UserRequestCancel', { requestuuid, reason: 'canceled in the console' }), onSuccess: settle('canceled') });
  const type = text(request.requesttype);
  const person = usePerson(text(request.token));
  const who = person.data ? personLabel(objectOf(person.data.profile)) : 'this person';
  const open = request.status === 'open' && decided === null;
  return (
    <div className="card" aria-label={`Request ${requestuuid}`} role="region">
      <QueryState loading={detail.isLoading} error={detail.error} what="the request" />
      {detail.data ? (
        <>
          <p>
            <span className="tag">{type}</span> <span className="tag">{decided ?? text(request.status)}</span> about <PersonName token={text(request.token)} />
            {request.brief ? <> consent {text(request.brief)}</> : null}
            {request.appname ? <> app {text(request.appname)}</> : null}
          </p>
          <Change type={type} request={request} />
          {open ? (
            <div className="actions">
              {type === 'forget-me' ? (
                <ConfirmButton label="Approve erasure" subject={`of ${who}`} confirmLabel={`Erase ${who} for good`} disabled={approve.isPending} onConfirm={() => approve.mutate()}>
                  <p>Approving deletes {who}&apos;s record and destroys their key: every copy of their data stops opening. This cannot be undone.</p>
                </ConfirmButton>
              ) : (
                <button type="button" className="primary" disabled={approve.isPending} onClick={() => approve.mutate()}>
                  Approve
                </button>
              )}
              <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
                Cancel request
              </button>
            </div>
          ) : (
            <Notice>This request is {decided ?? text(request.status)}.</Notice>
          )}
          {type === 'forget-me' && (decided ?? request.status) === 'approved' ? (
            <p>
              <Link to={`/events/erasures?requestuuid=${encodeURIComponent(requestuuid)}`}>Which recipients confirmed this erasure</Link>
            </p>
          ) : null}
          <ErrorMessage error={approve.error ?? cancel.error} />
        </>
      ) : null}
    </div>
  );
}

/** The proposal applied to the data as it is now: a merge (profile, app data) or an RFC 6902 patch. */
function proposed(original: unknown, change: Record<string, unknown>): unknown {
  if (Array.isArray(change.patch)) return applyPatch(structuredClone(original ?? {}), change.patch as Operation[], false, false).newDocument;
  if ('profile' in change) return applyMergePatch(original, change.profile);
  if ('appdata' in change) return applyMergePatch(original, change.appdata);
  return original;
}

function Change({ type, request }: { type: string; request: Record<string, unknown> }) {
  if (type === 'forget-me') return <p>The person asks to be erased: approving deletes their record and everything sealed under their key.</p>;
  if (type === 'agreement-withdraw') return <p>The person withdraws their consent to {text(request.brief)}.</p>;
  if ('original' in request) {
    try {
      return <DiffView caption="The requested change" changes={diffJson(request.original, proposed(request.original, objectOf(request.change)))} />;
    } catch {
      // A patch that no longer applies to the data as it is now: show it as it was asked for.
    }
  }
  return <JsonBlock value={request.change} label="The requested change" />;
}
