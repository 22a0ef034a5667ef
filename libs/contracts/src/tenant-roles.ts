import { z } from 'zod';

/**
 * The roles within a tenant, from least to most (docs/access.md): each holds every right of the
 * ones before it. `viewer` reads; `member` talks to the tenant's agents and manages its own
 * conversations, credentials, tasks and approvals; `developer` also writes agents (and datasets);
 * `admin` also manages keys, model connections, budgets, members' data erasure and the audit.
 */
export const TENANT_ROLES = ['viewer', 'member', 'developer', 'admin'] as const;
export const TenantRole = z.enum(TENANT_ROLES);
export type TenantRole = z.infer<typeof TenantRole>;

/** Whether `role` holds at least the rights of `required`. */
export function roleAtLeast(role: TenantRole, required: TenantRole): boolean {
  return TENANT_ROLES.indexOf(role) >= TENANT_ROLES.indexOf(required);
}

/** The highest tenant role among `names` (other names, e.g. the operator role, are ignored); undefined when none is one. */
export function highestTenantRole(names: readonly string[]): TenantRole | undefined {
  let best: TenantRole | undefined;
  for (const name of names) {
    const parsed = TenantRole.safeParse(name);
    if (parsed.success && (best === undefined || roleAtLeast(parsed.data, best))) best = parsed.data;
  }
  return best;
}
