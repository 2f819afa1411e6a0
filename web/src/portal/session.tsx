// The signed-in person: their login xtoken and record token, kept only for this tab.
import { createContext, useContext } from 'react';
import { call, type Answer } from '../api/client';
import type { OperationName, Requests } from '../api/requests.gen';

export interface PortalSession {
  xtoken: string;
  token: string;
}

export const SESSION_KEY = 'strongroom.portal';

export interface Me {
  session: PortalSession;
  /** The person's own identity, as every per-person operation names it. */
  me: { mode: 'token'; identity: string };
  call: <Op extends OperationName>(op: Op, body: Requests[Op]) => Promise<Answer>;
}

export function meFor(session: PortalSession): Me {
  return { session, me: { mode: 'token', identity: session.token }, call: (op, body) => call(op, body, { token: session.xtoken }) };
}

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in portal');
  return me;
}
