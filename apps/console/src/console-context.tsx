import { createContext, useContext } from 'react';
import type { PlatformApi } from './api/endpoints.js';
import type { ConsoleConfig } from './api/types.js';
import type { Session } from './lib/session.js';
import type { TenantRole } from './lib/roles.js';

/** What every page reads: who is signed in, the API as them, and the api's settings. */
export interface ConsoleContextValue {
  session: Session;
  api: PlatformApi;
  config: ConsoleConfig;
  /** Whether writes are refused (an operator viewing another tenant, or a viewer). */
  readOnly: boolean;
  /** The caller's tenant role (from `GET /v1/me`; the token's claim until it answers). */
  role: TenantRole;
  /** Whether the caller holds at least `role` (pages hide what the api would refuse). */
  can: (role: TenantRole) => boolean;
  viewTenant: (tenant: string | undefined) => void;
  signOut: () => void;
}

export const ConsoleContext = createContext<ConsoleContextValue | undefined>(undefined);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole is used inside the signed-in console only');
  return value;
}
