import {
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Logger } from 'pino';
import { CallerGate, type CallerTable } from './grpc-callers.js';
import { GRPC_MAX_MESSAGE_BYTES } from './grpc-limits.js';
import type { GrpcTransport } from './grpc-transport.js';
import { isConnectionLoss } from './connection-loss.js';
import { listenFailure } from './listen-failure.js';
import { PlatformError } from './errors.js';
import { SharedErrorCodes } from './error-catalogue.js';
import { toGrpcError } from './grpc-status.js';

export interface GrpcServerOptions {
  host: string;
  /** 0 binds a free port; `start()` returns the bound one. */
  port: number;
  logger: Logger;
  /** Mutual TLS (or the plaintext dev switch): from `compileGrpcTransport` of the service's config. */
  transport: GrpcTransport;
  /**
   * A second, plaintext port that serves only `grpc.health.v1` (Kubernetes' gRPC probes cannot
   * present a client certificate). Unset: health is asked on the main port, with a certificate.
   */
  healthPort?: number | undefined;
  /** Largest message accepted, in bytes (default GRPC_MAX_MESSAGE_BYTES). */
  maxReceiveMessageBytes?: number;
  /** The setting a failed bind names as the way to move the port (default `GRPC_PORT`). */
  portSetting?: string;
}

/**
 * A gRPC server that always exposes `grpc.health.v1`, answers only the callers each method's
 * allowlist names (identity from the client certificate), and maps service errors to statuses at
 * the edge.
 */
export class GrpcServer {
  private readonly server: Server;
  private readonly healthServer: Server | undefined;
  private readonly gate: CallerGate;
  private readonly health = new HealthImplementation({ '': 'NOT_SERVING' });
  private readonly serviceNames: string[] = [];
  private boundPort: number | undefined;
  private boundHealthPort: number | undefined;

  constructor(private readonly options: GrpcServerOptions) {
    this.gate = new CallerGate(options.transport, options.logger);
    this.server = new Server({
      'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? GRPC_MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': GRPC_MAX_MESSAGE_BYTES,
      interceptors: [this.gate.interceptor],
    });
    this.health.addToServer(this.server);
    if (options.healthPort !== undefined) {
      this.healthServer = new Server();
      this.health.addToServer(this.healthServer);
    }
  }

  /**
   * Registers a service; `name` is its fully-qualified name as health checks ask for it (e.g.
   * `memory.v1.MemoryService`), `callers` the identities allowed per method.
   */
  addService<D extends ServiceDefinition>(
    name: string,
    definition: D,
    implementation: UntypedServiceImplementation,
    callers: CallerTable<D>,
  ): this {
    this.gate.register(definition, callers);
    this.server.addService(definition, implementation);
    this.serviceNames.push(name);
    this.health.setStatus(name, 'NOT_SERVING');
    return this;
  }

  /** Binds and marks every service SERVING. Resolves with the bound port. */
  async start(): Promise<number> {
    const bind = (server: Server, port: number, credentials: ServerCredentials): Promise<number> =>
      new Promise<number>((resolve, reject) => {
        server.bindAsync(`${this.options.host}:${port}`, credentials, (error, bound) =>
          error ? reject(error) : resolve(bound),
        );
      });
    await this.options.transport.whenLoaded();
    try {
      this.boundPort = await bind(this.server, this.options.port, this.options.transport.serverCredentials());
    } catch (error) {
      throw await listenFailure(this.options.host, this.options.port, this.options.portSetting ?? 'GRPC_PORT', error);
    }
    if (this.healthServer) {
      try {
        this.boundHealthPort = await bind(
          this.healthServer,
          this.options.healthPort!,
          ServerCredentials.createInsecure(),
        );
      } catch (error) {
        throw await listenFailure(this.options.host, this.options.healthPort!, 'GRPC_HEALTH_PORT', error);
      }
    }
    this.setServing(true);
    const identity = this.options.transport.identity;
    this.options.logger.info(
      {
        port: this.boundPort,
        healthPort: this.boundHealthPort,
        services: this.serviceNames,
        transport: this.options.transport.kind,
        ...(identity ? { identity: identity.name, trustDomain: identity.trustDomain } : {}),
      },
      'grpc server listening',
    );
    return this.boundPort;
  }

  get port(): number | undefined {
    return this.boundPort;
  }

  /** The plaintext health-only port, when one was asked for. */
  get healthPort(): number | undefined {
    return this.boundHealthPort;
  }

  /** Health status of every service (used to report NOT_SERVING while draining). */
  setServing(serving: boolean): void {
    const status = serving ? 'SERVING' : 'NOT_SERVING';
    this.health.setStatus('', status);
    for (const name of this.serviceNames) this.health.setStatus(name, status);
  }

  /** Stops taking new calls, lets in-flight calls finish for up to `graceMs`, then cancels the rest. */
  async stop(graceMs: number): Promise<void> {
    this.setServing(false);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    // The health port answers NOT_SERVING while the main port drains, then goes too.
    this.healthServer?.forceShutdown();
  }
}

/**
 * A signal that aborts when the caller of `call` gives up: it cancelled, its deadline passed, or the
 * connection went away. A handler passes it to the work it starts, so work nobody waits for any
 * more stops taking connections and CPU from the calls still waited for.
 */
export function callAbortSignal(call: Pick<ServerUnaryCall<unknown, unknown>, 'cancelled' | 'once'>): AbortSignal {
  const controller = new AbortController();
  const abort = () =>
    controller.abort(
      new PlatformError(
        'cancelled',
        SharedErrorCodes.CALLER_GAVE_UP,
        'the caller cancelled the call or its deadline passed',
      ),
    );
  if (call.cancelled) abort();
  else call.once('cancelled', abort);
  return controller.signal;
}

/**
 * Adapts an async function to a grpc-js unary handler. Whatever it throws becomes a gRPC status
 * (PlatformError -> its kind's status with code and details in trailers; anything else -> INTERNAL,
 * logged with the stack, never sent to the caller).
 */
export function unaryHandler<Req, Res>(
  logger: Logger,
  method: string,
  fn: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void {
  return (call, callback) => {
    // Called inside an async function, so a handler that throws before its first await (a plain
    // function checking its request) is answered with its status like one that rejects.
    (async () => fn(call.request, call))().then(
      (response) => callback(null, response),
      (error: unknown) => {
        const grpcError = toGrpcError(error);
        if (grpcError.details === 'internal error')
          logger.error({ err: error, method }, 'unhandled error in grpc handler');
        else if (!(error instanceof PlatformError) && isConnectionLoss(error))
          logger.warn(
            { err: (error as Error).message, method },
            'a dependency is unreachable; the caller is told to retry',
          );
        else logger.debug({ err: error, method }, 'grpc handler returned an error');
        callback(grpcError);
      },
    );
  };
}
