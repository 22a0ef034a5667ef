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
import { GRPC_MAX_MESSAGE_BYTES } from './grpc-limits.js';
import { isConnectionLoss } from './connection-loss.js';
import { listenFailure } from './listen-failure.js';
import { PlatformError } from './errors.js';
import { toGrpcError } from './grpc-status.js';

export interface GrpcServerOptions {
  host: string;
  /** 0 binds a free port; `start()` returns the bound one. */
  port: number;
  logger: Logger;
  /** Largest message accepted, in bytes (default GRPC_MAX_MESSAGE_BYTES). */
  maxReceiveMessageBytes?: number;
  /** The setting a failed bind names as the way to move the port (default `GRPC_PORT`). */
  portSetting?: string;
}

/** A gRPC server that always exposes `grpc.health.v1` and maps service errors to statuses at the edge. */
export class GrpcServer {
  private readonly server: Server;
  private readonly health = new HealthImplementation({ '': 'NOT_SERVING' });
  private readonly serviceNames: string[] = [];
  private boundPort: number | undefined;

  constructor(private readonly options: GrpcServerOptions) {
    this.server = new Server({
      'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? GRPC_MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': GRPC_MAX_MESSAGE_BYTES,
    });
    this.health.addToServer(this.server);
  }

  /** Registers a service; `name` is its fully-qualified name as health checks ask for it (e.g. `memory.v1.MemoryService`). */
  addService(name: string, definition: ServiceDefinition, implementation: UntypedServiceImplementation): this {
    this.server.addService(definition, implementation);
    this.serviceNames.push(name);
    this.health.setStatus(name, 'NOT_SERVING');
    return this;
  }

  /** Binds and marks every service SERVING. Resolves with the bound port. */
  async start(): Promise<number> {
    const address = `${this.options.host}:${this.options.port}`;
    try {
      this.boundPort = await new Promise<number>((resolve, reject) => {
        this.server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
      });
    } catch (error) {
      throw await listenFailure(this.options.host, this.options.port, this.options.portSetting ?? 'GRPC_PORT', error);
    }
    this.setServing(true);
    this.options.logger.info({ port: this.boundPort, services: this.serviceNames }, 'grpc server listening');
    return this.boundPort;
  }

  get port(): number | undefined {
    return this.boundPort;
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
  }
}

/**
 * A signal that aborts when the caller of `call` gives up: it cancelled, its deadline passed, or the
 * connection went away. A handler passes it to the work it starts, so work nobody waits for any
 * more stops taking connections and CPU from the calls still waited for.
 */
export function callAbortSignal(call: Pick<ServerUnaryCall<unknown, unknown>, 'cancelled' | 'once'>): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort(new PlatformError('cancelled', 'CALLER_GAVE_UP', 'the caller cancelled the call or its deadline passed'));
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
    fn(call.request, call).then(
      (response) => callback(null, response),
      (error: unknown) => {
        const grpcError = toGrpcError(error);
        if (grpcError.details === 'internal error') logger.error({ err: error, method }, 'unhandled error in grpc handler');
        else if (!(error instanceof PlatformError) && isConnectionLoss(error)) logger.warn({ err: (error as Error).message, method }, 'a dependency is unreachable; the caller is told to retry');
        else logger.debug({ err: error, method }, 'grpc handler returned an error');
        callback(grpcError);
      },
    );
  };
}
