/** What the console reads from a token's payload (the api verifies it; the console only displays). */
export interface TokenClaims {
  tenant: string;
  subject: string;
  roles: string[];
  /** Expiry in epoch ms, when the token has one. */
  expiresAt?: number;
}

export class TokenFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFormatError';
  }
}

function base64UrlDecode(part: string): string {
  const base64 = part
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(part.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** Reads a JWT's claims as the api does (tenant from `tenant`, else `sub`); throws on what is not a JWT. */
export function readClaims(token: string): TokenClaims {
  const parts = token.trim().split('.');
  if (parts.length !== 3 || !parts[1])
    throw new TokenFormatError('This is not a JWT: it needs three parts separated by dots.');
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(base64UrlDecode(parts[1])) as Record<string, unknown>;
  } catch {
    throw new TokenFormatError("The token's payload is not readable JSON.");
  }
  const subject = typeof payload['sub'] === 'string' ? payload['sub'] : '';
  const tenant = typeof payload['tenant'] === 'string' ? payload['tenant'] : subject;
  if (!tenant) throw new TokenFormatError('The token names no tenant (claim "tenant" or "sub").');
  const roles = Array.isArray(payload['roles'])
    ? payload['roles'].filter((r): r is string => typeof r === 'string')
    : [];
  const exp = typeof payload['exp'] === 'number' ? payload['exp'] * 1000 : undefined;
  return { tenant, subject, roles, ...(exp === undefined ? {} : { expiresAt: exp }) };
}

/** The signed-in session, kept in sessionStorage: it lasts as long as the browser tab. */
export interface Session {
  token: string;
  claims: TokenClaims;
  /** The tenant an operator views read-only (Platform-Tenant), if any. */
  viewTenant?: string | undefined;
}

const TOKEN_KEY = 'platform-console.token';
const VIEW_TENANT_KEY = 'platform-console.view-tenant';

export function loadSession(storage: Storage): Session | undefined {
  const token = storage.getItem(TOKEN_KEY);
  if (!token) return undefined;
  try {
    const claims = readClaims(token);
    if (claims.expiresAt !== undefined && claims.expiresAt <= Date.now()) return undefined;
    const viewTenant = storage.getItem(VIEW_TENANT_KEY) ?? undefined;
    return { token, claims, viewTenant };
  } catch {
    return undefined;
  }
}

export function saveSession(storage: Storage, session: Session | undefined): void {
  if (!session) {
    storage.removeItem(TOKEN_KEY);
    storage.removeItem(VIEW_TENANT_KEY);
    return;
  }
  storage.setItem(TOKEN_KEY, session.token);
  if (session.viewTenant) storage.setItem(VIEW_TENANT_KEY, session.viewTenant);
  else storage.removeItem(VIEW_TENANT_KEY);
}

/** The tenant whose data the console shows: the viewed one for an operator, else the token's. */
export function shownTenant(session: Session): string {
  return session.viewTenant || session.claims.tenant;
}

/** Whether the session only reads (an operator looking at another tenant: the api refuses writes). */
export function isReadOnly(session: Session): boolean {
  return Boolean(session.viewTenant) && session.viewTenant !== session.claims.tenant;
}
