import {
  Metadata,
  ServerInterceptingCall,
  status,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
  type ServerMethodDefinition,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { GrpcTransport } from './grpc-transport.js';
import { identityInSubjectAltName, identityMatches, spiffeId } from './service-identity.js';

/**
 * Which service identities may call each method of one gRPC service: one line per method of the
 * generated definition (the type makes a new method fail to compile until it is listed), each a
 * list of identity names (`api`, `trigger`, `runner/*` for every runner). `[]` opens it to none.
 */
export type CallerTable<D> = { readonly [K in keyof D]: readonly string[] };

/** `grpc.health.v1` answers any service of the platform (the api's readiness probe, operators' tools). */
const ANY_PLATFORM_SERVICE = '*';

const HEALTH_PATHS = ['/grpc.health.v1.Health/Check', '/grpc.health.v1.Health/Watch', '/grpc.health.v1.Health/List'];

interface Refusal {
  code: status;
  details: string;
}

/**
 * The allowlists of one server, by method path (`/orchestrator.v1.OrchestratorService/GetRun`),
 * enforced by a server interceptor before any handler runs. Fails closed: a path nobody listed is
 * refused. With the plaintext dev transport there is no identity to check and nothing is refused.
 */
export class CallerGate {
  private readonly allowed = new Map<string, readonly string[]>(
    HEALTH_PATHS.map((path) => [path, [ANY_PLATFORM_SERVICE]]),
  );

  constructor(
    private readonly transport: GrpcTransport,
    private readonly logger: Logger,
  ) {}

  /** Adds a service's table; every method of `definition` must be in it (checked here for untyped callers too). */
  register<D extends Record<string, unknown>>(definition: D, callers: CallerTable<D>): void {
    for (const [method, spec] of Object.entries(definition)) {
      const path = (spec as { path?: unknown }).path;
      const list = (callers as Record<string, readonly string[] | undefined>)[method];
      if (typeof path !== 'string') continue;
      if (!list)
        throw new Error(`no caller allowlist for gRPC method ${path}: add one line to the service's caller table`);
      this.allowed.set(path, list);
    }
  }

  readonly interceptor: ServerInterceptor = (
    method: ServerMethodDefinition<unknown, unknown>,
    call: ServerInterceptingCallInterface,
  ) =>
    new ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata: Metadata, mdNext: (metadata: Metadata) => void) => {
            const refusal = this.check(method.path, call);
            if (refusal) call.sendStatus({ ...refusal, metadata: new Metadata() });
            else mdNext(metadata);
          },
        });
      },
    });

  private check(path: string, call: ServerInterceptingCallInterface): Refusal | undefined {
    if (this.transport.kind === 'plaintext') return undefined;
    const own = this.transport.identity;
    const certificate = call.getAuthContext().sslPeerCertificate;
    const peer = identityInSubjectAltName(certificate?.subjectaltname);
    if (!peer || peer.trustDomain !== own.trustDomain) {
      this.logger.warn(
        { method: path, peer: call.getPeer() },
        'grpc call refused: the caller presented no identity of this trust domain',
      );
      return {
        code: status.UNAUTHENTICATED,
        details: `a client certificate with a spiffe://${own.trustDomain}/<service> URI SAN is required`,
      };
    }
    const allowed = this.allowed.get(path) ?? [];
    if (allowed.some((pattern) => pattern === ANY_PLATFORM_SERVICE || identityMatches(pattern, peer.name)))
      return undefined;
    this.logger.warn(
      { method: path, caller: spiffeId(peer) },
      'grpc call refused: the caller is not in the method allowlist',
    );
    return { code: status.PERMISSION_DENIED, details: `service '${peer.name}' may not call ${path}` };
  }
}
