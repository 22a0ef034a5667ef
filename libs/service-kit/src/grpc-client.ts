import {
  Metadata,
  type ChannelCredentials,
  type CallOptions,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { GRPC_MAX_MESSAGE_BYTES } from './grpc-limits.js';
import { fromGrpcError } from './grpc-status.js';
import type { GrpcTransport } from './grpc-transport.js';

interface CallSettings {
  /** Overrides the client's default deadline for this call. */
  deadlineMs?: number;
  /** Cancels the call when aborted. */
  signal?: AbortSignal;
  metadata?: Metadata;
  /** Called with the server's initial metadata (its headers) when it sends them, before the answer. */
  onHeaders?: (headers: Metadata) => void;
}

type UnaryCallback<Res> = (error: ServiceError | null, response: Res) => void;
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: UnaryCallback<Res>,
) => ClientUnaryCall;

/** Matches the full (last) overload of a generated unary method and captures its message types. */
type UnaryShape<M> = M extends (
  request: infer Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: infer Res) => void,
) => ClientUnaryCall
  ? { request: Req; response: Res }
  : never;

/** The promise-returning form of a ts-proto grpc-js client: one method per unary RPC. */
export type PromiseClient<C> = {
  [K in keyof C as UnaryShape<C[K]> extends never ? never : K]: (
    request: UnaryShape<C[K]>['request'],
    settings?: CallSettings,
  ) => Promise<UnaryShape<C[K]>['response']>;
};

export interface GrpcClientOptions {
  /** Mutual TLS (or the plaintext dev switch): the same transport as the service's servers. */
  transport: GrpcTransport;
  /** The identity name of the service called (`orchestrator`): the server's certificate must carry it. */
  server: string;
  /** Deadline applied to every call that does not set its own. Every call has one. */
  defaultDeadlineMs: number;
  channelOptions?: ClientOptions;
}

export interface GrpcClientHandle<C> {
  readonly rpc: PromiseClient<C>;
  readonly raw: C;
  close(): void;
}

const ROUND_ROBIN = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * A target with a resolver scheme (`dns:///orchestrator:50052`, `ipv4:10.0.0.5:50052,10.0.0.6:50052`)
 * names a set of replicas: calls are spread over them round robin (grpc-js would send every call to
 * the first). A plain `host:port` keeps grpc-js's default (one connection that, after the peer
 * restarts, reconnects when the next call needs it, so that call waits rather than fails).
 */
function namesReplicas(address: string): boolean {
  return /^(dns|ipv4|ipv6):/.test(address);
}

type ClientConstructor<C> = new (address: string, creds: ChannelCredentials, options?: ClientOptions) => C;

/**
 * Creates a client for a ts-proto generated service. It presents the service's certificate and
 * talks only to a server that proves to be `options.server`; every call carries a deadline, and
 * failures come back as PlatformError with the server's stable code.
 */
export function createGrpcClient<C extends Client, D extends Record<string, unknown>>(
  Ctor: ClientConstructor<C>,
  definition: D,
  address: string,
  options: GrpcClientOptions,
): GrpcClientHandle<C> {
  const channelOptions: ClientOptions = {
    // Reconnect quickly after a peer restarts (grpc-js waits up to 2 minutes by default).
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 5_000,
    // The same message size limit as the servers (grpc-js would refuse answers over 4 MiB).
    'grpc.max_receive_message_length': GRPC_MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': GRPC_MAX_MESSAGE_BYTES,
    ...(namesReplicas(address) ? { 'grpc.service_config': ROUND_ROBIN } : {}),
    // TLS names the server by its identity (SNI), not by the address it was dialled at.
    ...(options.transport.kind === 'mtls' ? { 'grpc.ssl_target_name_override': options.server } : {}),
    ...options.channelOptions,
  };
  const raw = new Ctor(address, options.transport.channelCredentials(options.server), channelOptions);
  const rpc: Record<string, unknown> = {};
  for (const name of Object.keys(definition)) {
    const method = (raw as unknown as Record<string, UnaryMethod<unknown, unknown>>)[name];
    if (typeof method !== 'function') continue;
    rpc[name] = (request: unknown, settings: CallSettings = {}) =>
      callUnary(method.bind(raw), request, settings.deadlineMs ?? options.defaultDeadlineMs, settings);
  }
  return { rpc: rpc as PromiseClient<C>, raw, close: () => raw.close() };
}

function callUnary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  deadlineMs: number,
  settings: CallSettings,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    if (settings.signal?.aborted) {
      reject(
        fromGrpcError(Object.assign(new Error('call cancelled before it started'), { code: 1, details: 'cancelled' })),
      );
      return;
    }
    const call = method(
      request,
      settings.metadata ?? new Metadata(),
      { deadline: Date.now() + deadlineMs },
      (error, response) => {
        settings.signal?.removeEventListener('abort', onAbort);
        if (error) reject(fromGrpcError(error));
        else resolve(response);
      },
    );
    if (settings.onHeaders) call.on('metadata', settings.onHeaders);
    const onAbort = (): void => call.cancel();
    settings.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
