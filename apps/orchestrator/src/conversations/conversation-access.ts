import { TenantRole } from '@platform/contracts';

/**
 * Who reaches a conversation (docs/conversations.md#who-can-see-a-conversation): within a tenant,
 * a conversation belongs to the end user who started it. A `viewer` or `member` reaches their own
 * and shared ones; a `developer` or `admin` reaches every one of the tenant's.
 */
export interface ConversationReader {
  tenantId: string;
  /** The end user (the token's `sub`); '' when the caller has none. */
  subject: string;
  /** Whether the caller reaches every conversation of the tenant. */
  seesAll: boolean;
  /** Whether the caller may share or unshare any conversation (a tenant admin). */
  isAdmin: boolean;
}

/**
 * The reader a tenant role makes. An empty role is a platform service's call (the trigger
 * service's messages, the api's decision on an approval it already checked the decider of): it
 * reaches every conversation of the tenant. A role that is none of the tenant roles reaches only
 * the caller's own conversations.
 */
export function readerOf(tenantId: string, subject: string, role: string): ConversationReader {
  if (role === '') return { tenantId, subject, seesAll: true, isAdmin: false };
  const parsed = TenantRole.safeParse(role);
  const known = parsed.success ? parsed.data : 'viewer';
  return {
    tenantId,
    subject,
    seesAll: known === 'developer' || known === 'admin',
    isAdmin: known === 'admin',
  };
}
