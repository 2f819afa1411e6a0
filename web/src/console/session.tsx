// The signed-in credential of the console and the calls made with it.
import { createContext, useContext } from 'react';
import { call, callRaw, consoleCredentials, type Answer } from '../api/client';
import type { OperationName, Requests } from '../api/requests.gen';

export interface ConsoleSession {
  token: string;
  /** Root (a main-tenant admin) may act in any tenant: the tenant switcher sets this. */
  tenant: string;
  kind: 'root' | 'admin';
  /** Signed in through the organisation's identity provider: signing out ends the credential (POST /oidc/logout). */
  viaOidc?: true;
}

export interface Vault {
  session: ConsoleSession;
  call: <Op extends OperationName>(op: Op, body: Requests[Op]) => Promise<Answer>;
  callRaw: <Op extends OperationName>(op: Op, body: Requests[Op]) => Promise<Blob>;
  /** For operations that only the main tenant serves (roles), whichever tenant the switcher has chosen. */
  callMain: <Op extends OperationName>(op: Op, body: Requests[Op]) => Promise<Answer>;
}

export function vaultFor(session: ConsoleSession): Vault {
  const creds = { token: session.token, tenant: session.tenant || undefined };
  return {
    session,
    // The console's own reads about the vault are marked housekeeping (api/client.ts, HOUSEKEEPING); nothing else.
    call: (op, body) => call(op, body, consoleCredentials(op, creds)),
    callRaw: (op, body) => callRaw(op, body, creds),
    callMain: (op, body) => call(op, body, consoleCredentials(op, { token: session.token })),
  };
}

export const VaultContext = createContext<Vault | null>(null);

export function useVault(): Vault {
  const vault = useContext(VaultContext);
  if (!vault) throw new Error('useVault outside a signed-in console');
  return vault;
}

export const SESSION_KEY = 'strongroom.console';
