import { CredentialAccount, CredentialService, DEFAULT_CREDENTIAL_ACCOUNT } from '@platform/contracts';
import { credentialV1 } from '@platform/proto';
import { createGrpcClient, isPlatformError, type GrpcClientHandle, type GrpcTransport } from '@platform/service-kit';
import { decodeJwt } from 'jose';
import { ToolSdkError } from './tool-sdk-error.js';

/** A connected account's credential, as the tool reads it. */
interface ConnectedCredential {
  connected: true;
  service: string;
  account: string;
  /** The JSON object the application stored (e.g. `{ access_token, refresh_token, expires_at }`). */
  secret: Record<string, unknown>;
  /** Pass back as `expectedVersion` when saving a refreshed token. */
  version: number;
}

/** No credential is stored: the tool should tell the user to connect the account. */
interface NotConnected {
  connected: false;
  service: string;
  account: string;
  /** A sentence for the user, e.g. "Connect your google account (primary) to let me do this." */
  message: string;
}

type CredentialLookup = ConnectedCredential | NotConnected;

interface SaveCredentialOptions {
  account?: string;
  /** The version read before refreshing: the save fails with `CredentialVersionConflict` if another replica saved first. */
  expectedVersion?: number;
}

/** Stable codes of credential access failures a tool may see. */
export type CredentialAccessCode =
  | 'NO_CREDENTIAL_SERVICE'
  | 'SERVICE_NOT_DECLARED'
  | 'NO_GRANT'
  | 'VERSION_CONFLICT'
  | 'ACCESS_DENIED'
  | 'CREDENTIAL_UNAVAILABLE';

/** Reading or saving a credential failed for a reason other than "not connected". Never carries the secret. */
export class CredentialAccessError extends ToolSdkError {
  constructor(
    readonly code: CredentialAccessCode,
    message: string,
    readonly service: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Another writer saved the credential first: read it again (it may already hold a fresh token). */
export class CredentialVersionConflict extends CredentialAccessError {
  constructor(
    service: string,
    readonly currentVersion: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'VERSION_CONFLICT',
      `credential '${service}' was saved by someone else first (now version ${currentVersion ?? '?'})`,
      service,
      options,
    );
  }
}

/** `ctx.credentials`: the credentials the tool declared, through the call's grant. */
export interface ToolCredentials {
  /** The stored credential of `service` (account `primary` unless named), or a typed "not connected". */
  get(service: string, account?: string): Promise<CredentialLookup>;
  /** Saves a refreshed credential; returns its new version. */
  save(service: string, secret: Record<string, unknown>, options?: SaveCredentialOptions): Promise<{ version: number }>;
}

/** Where a runner reaches the credential service. */
export interface CredentialClientOptions {
  /** gRPC target, e.g. `127.0.0.1:50055` or `dns:///credential:50055`. */
  address: string;
  /** Deadline of each call. Default 5 s. */
  deadlineMs?: number;
  /**
   * The runner's mutual-TLS identity (`spiffe://<trust-domain>/runner/<name>`): from the runner's
   * GRPC_TLS_* settings, e.g. `grpcTransportFromEnv()` (service-kit).
   */
  transport: GrpcTransport;
}

export type CredentialRpc = GrpcClientHandle<credentialV1.CredentialServiceClient>;

export function connectCredentialService(options: CredentialClientOptions): CredentialRpc {
  return createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    options.address,
    { defaultDeadlineMs: options.deadlineMs ?? 5_000, transport: options.transport, server: 'credential' },
  );
}

/** Checks a tool's or agent's declared services at definition time, naming the bad one. */
export function declaredCredentialServices(owner: string, services: readonly string[] | undefined): string[] {
  for (const service of services ?? []) {
    if (!CredentialService.safeParse(service).success)
      throw new Error(
        `${owner} declares credential service '${service}': use lowercase letters, digits, '.', '_' or '-'`,
      );
  }
  return [...new Set(services ?? [])];
}

/**
 * The model call a grant was issued for (its `call` claim, read without verifying: the credential
 * service verifies). An agent step runs under the pool's step call id, but its grant names the
 * model's call, and that is the call its credential requests act for.
 */
export function grantCallId(grant: string | undefined): string | undefined {
  if (!grant) return undefined;
  try {
    const call = decodeJwt(grant)['call'];
    return typeof call === 'string' ? call : undefined;
  } catch {
    return undefined;
  }
}

function notConnectedMessage(service: string, account: string): string {
  return account === DEFAULT_CREDENTIAL_ACCOUNT
    ? `Connect your ${service} account to let me do this.`
    : `Connect your ${service} account '${account}' to let me do this.`;
}

interface CallScope {
  tenantId: string;
  callId: string;
  /** The services the tool declared. */
  declared: readonly string[];
  grant: string | undefined;
}

function failure(service: string, err: unknown): CredentialAccessError {
  if (isPlatformError(err) && err.kind === 'permission_denied')
    return new CredentialAccessError(
      'ACCESS_DENIED',
      `the credential service refused '${service}': ${err.code}`,
      service,
      { cause: err },
    );
  if (isPlatformError(err) && err.kind === 'unauthenticated')
    return new CredentialAccessError('ACCESS_DENIED', `the call's credential grant was refused: ${err.code}`, service, {
      cause: err,
    });
  const code = isPlatformError(err) ? err.code : 'UNREACHABLE';
  return new CredentialAccessError(
    'CREDENTIAL_UNAVAILABLE',
    `credential '${service}' could not be read: ${code}`,
    service,
    { cause: err },
  );
}

/** The credentials of one call. */
export function callCredentials(rpc: CredentialRpc | undefined, scope: CallScope): ToolCredentials {
  function check(service: string, account: string | undefined): { service: string; account: string } {
    if (!rpc)
      throw new CredentialAccessError(
        'NO_CREDENTIAL_SERVICE',
        'this runner has no credential service configured (RunnerOptions.credentials)',
        service,
      );
    if (!scope.declared.includes(service))
      throw new CredentialAccessError(
        'SERVICE_NOT_DECLARED',
        `the tool did not declare credentials: ['${service}']`,
        service,
      );
    if (!scope.grant)
      throw new CredentialAccessError(
        'NO_GRANT',
        'the call came without a credential grant (was it sent by the platform?)',
        service,
      );
    return {
      service: CredentialService.parse(service),
      account: CredentialAccount.parse(account ?? DEFAULT_CREDENTIAL_ACCOUNT),
    };
  }
  return {
    async get(service, account) {
      const key = check(service, account);
      try {
        const response = await rpc!.rpc.getCredential({
          tenantId: scope.tenantId,
          ...key,
          grant: scope.grant!,
          callId: scope.callId,
          actor: undefined,
        });
        return {
          connected: true,
          ...key,
          secret: JSON.parse(response.secretJson) as Record<string, unknown>,
          version: response.credential?.version ?? 0,
        };
      } catch (err) {
        if (isPlatformError(err) && err.code === 'CREDENTIAL_NOT_FOUND')
          return { connected: false, ...key, message: notConnectedMessage(key.service, key.account) };
        throw failure(service, err);
      }
    },
    async save(service, secret, options = {}) {
      const key = check(service, options.account);
      try {
        const response = await rpc!.rpc.saveCredential({
          tenantId: scope.tenantId,
          ...key,
          secretJson: JSON.stringify(secret),
          expectedVersion: options.expectedVersion,
          grant: scope.grant!,
          callId: scope.callId,
          actor: undefined,
        });
        return { version: response.credential?.version ?? 0 };
      } catch (err) {
        if (isPlatformError(err) && err.code === 'VERSION_CONFLICT') {
          const current = (err.details as { currentVersion?: number } | undefined)?.currentVersion;
          throw new CredentialVersionConflict(service, current, { cause: err });
        }
        throw failure(service, err);
      }
    },
  };
}
