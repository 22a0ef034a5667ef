import { z } from 'zod';
import { RunId, TenantId, ToolCallId, ToolName } from './ids.js';

/**
 * Credential names and grants, shared by the credential service (verifies), the orchestrator
 * (issues), the api and runners (docs/credentials.md, docs/tool-protocol.md).
 */

/** A third-party service a credential is for, e.g. `google`, `github`, `slack`. */
export const CredentialService = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    'must be 1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
  );
export type CredentialService = z.infer<typeof CredentialService>;

/** One account of a service within a tenant (an address, a workspace); `primary` when unnamed. */
export const CredentialAccount = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/,
    'must be 1-128 letters, digits, ".", "_", "@", "+" or "-", starting with a letter or digit',
  );
export type CredentialAccount = z.infer<typeof CredentialAccount>;

export const DEFAULT_CREDENTIAL_ACCOUNT = 'primary';

/** Issuer and audience of credential grants (JWT `iss` / `aud`). */
export const CREDENTIAL_GRANT_ISSUER = 'platform-orchestrator';
export const CREDENTIAL_GRANT_AUDIENCE = 'platform-credential';

/**
 * The claims of a credential grant: a short-lived JWT the orchestrator signs (asymmetric: EdDSA or
 * ES256) for one tool call, sent to the runner in the `Platform-Credential-Grant` header. It lets
 * the holder read and save only `services` of `tid`, and says which run, call and tool act.
 */
export const CredentialGrantClaims = z.object({
  iss: z.literal(CREDENTIAL_GRANT_ISSUER),
  aud: z.union([
    z.literal(CREDENTIAL_GRANT_AUDIENCE),
    z.array(z.string()).refine((a) => a.includes(CREDENTIAL_GRANT_AUDIENCE)),
  ]),
  tid: TenantId,
  run: RunId,
  call: ToolCallId,
  tool: ToolName,
  svc: z.array(CredentialService).min(1).max(32),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type CredentialGrantClaims = z.infer<typeof CredentialGrantClaims>;

/** Descriptor metadata value: the services a tool needs, comma-separated (`google,github`). */
export function parseCredentialServices(value: string | undefined): string[] {
  if (!value) return [];
  const services = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return z
    .array(CredentialService)
    .max(32)
    .parse([...new Set(services)]);
}
