import type { components } from '../gen/platform-api.js';

/** A tenant role as the api names it (docs/access.md#roles). */
export type TenantRole = components['schemas']['ApiKey']['role'];

/** The api's order of the tenant roles, least first: each holds every right of those before it. */
const ORDER: Record<TenantRole, number> = { viewer: 0, member: 1, developer: 2, admin: 3 };

/** Whether `role` holds at least the rights of `required`. */
export function roleAtLeast(role: TenantRole, required: TenantRole): boolean {
  return ORDER[role] >= ORDER[required];
}

/**
 * The role to show until `GET /v1/me` answers: the highest tenant role the token's `roles` claim
 * names, else `member` (the api's default; the api's answer replaces it, and the api enforces).
 */
export function roleFromClaims(roles: readonly string[]): TenantRole {
  let best: TenantRole = 'viewer';
  let named = false;
  for (const name of roles)
    if (name in ORDER) {
      named = true;
      if (ORDER[name as TenantRole] >= ORDER[best]) best = name as TenantRole;
    }
  return named ? best : 'member';
}
