import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServicePki, testCertificates } from '@platform/testing';
import {
  makeGenericClientConstructor,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors, PlatformError } from './errors.js';
import { createGrpcClient, type GrpcClientHandle } from './grpc-client.js';
import { GrpcHealthProbe } from './grpc-health.js';
import { callAbortSignal, GrpcServer, unaryHandler } from './grpc-server.js';
import { MutualTlsTransport, PlaintextTransport } from './grpc-transport.js';
import { createLogger } from './logger.js';

interface EchoRequest {
  text: string;
  delayMs?: number;
}
interface EchoResponse {
  text: string;
}

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const definition = {
  echo: {
    path: '/test.v1.EchoService/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
} satisfies ServiceDefinition;

interface EchoClient extends Client {
  echo(
    request: EchoRequest,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: EchoResponse) => void,
  ): ClientUnaryCall;
}
const EchoClient = makeGenericClientConstructor(definition, 'EchoService') as unknown as new (
  ...args: ConstructorParameters<typeof Client>
) => EchoClient;

const logger = createLogger({ service: 'test', level: 'silent' });
let server: GrpcServer;
let client: GrpcClientHandle<EchoClient>;
let address: string;
let serverTransport: MutualTlsTransport;
let callerTransport: MutualTlsTransport;
/** The echo service's caller table: only `caller` may call it. */
const callers = { echo: ['caller'] } as const;
/** Why the last 'await-cancel' call's signal aborted, once it did. */
let abortedWith: Promise<unknown> | undefined;

beforeAll(async () => {
  serverTransport = new MutualTlsTransport(await testCertificates('echo'));
  callerTransport = new MutualTlsTransport(await testCertificates('caller'));
  server = new GrpcServer({ host: '127.0.0.1', port: 0, logger, transport: serverTransport, healthPort: 0 });
  server.addService(
    'test.v1.EchoService',
    definition,
    {
      echo: unaryHandler<EchoRequest, EchoResponse>(logger, 'echo', (request, call) => {
        // A plain function that refuses before it returns a promise (as a request check does).
        if (request.text === 'refused-at-once')
          throw errors.invalidArgument('BAD_TEXT', 'text is refused', { details: { field: 'text' } });
        return echo(request, call);
      }),
    },
    callers,
  );
  address = `127.0.0.1:${await server.start()}`;
  client = createGrpcClient(EchoClient, definition, address, {
    defaultDeadlineMs: 2_000,
    transport: callerTransport,
    server: 'echo',
  });
});

async function echo(request: EchoRequest, call: ServerUnaryCall<EchoRequest, EchoResponse>): Promise<EchoResponse> {
  if (request.text === 'await-cancel') {
    const signal = callAbortSignal(call);
    abortedWith = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
    await abortedWith;
    return { text: 'too late' };
  }
  if (request.text === 'missing')
    throw errors.notFound('THING_NOT_FOUND', 'no such thing', { details: { thing: 'missing' } });
  if (request.text === 'crash') throw new Error('secret internal detail');
  if (request.delayMs) await new Promise((r) => setTimeout(r, request.delayMs));
  return { text: request.text.toUpperCase() };
}

afterAll(async () => {
  client.close();
  await server.stop(1_000);
});

describe('gRPC helpers', () => {
  it('round-trips a unary call through the promise client', async () => {
    expect(await client.rpc.echo({ text: 'hi' })).toEqual({ text: 'HI' });
  });

  it('carries a PlatformError code and details across the wire', async () => {
    const error = await client.rpc.echo({ text: 'missing' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      kind: 'not_found',
      code: 'THING_NOT_FOUND',
      message: 'no such thing',
      details: { thing: 'missing' },
    });
  });

  it('answers the status of a refusal thrown before the handler returns a promise', async () => {
    const error = await client.rpc.echo({ text: 'refused-at-once' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid_argument', code: 'BAD_TEXT', details: { field: 'text' } });
  });

  it('hides unexpected errors behind INTERNAL', async () => {
    const error = (await client.rpc.echo({ text: 'crash' }).catch((e: unknown) => e)) as PlatformError;
    expect(error.kind).toBe('internal');
    expect(error.message).not.toContain('secret');
  });

  it("aborts a handler's signal when the caller's deadline passes", async () => {
    const error = (await client.rpc
      .echo({ text: 'await-cancel' }, { deadlineMs: 50 })
      .catch((e: unknown) => e)) as PlatformError;
    expect(error.kind).toBe('deadline_exceeded');
    await expect(abortedWith).resolves.toMatchObject({ kind: 'cancelled', code: 'CALLER_GAVE_UP' });
  });

  it('gives an already cancelled call an aborted signal', () => {
    const signal = callAbortSignal({
      cancelled: true,
      once: () => {
        throw new Error('not listened to when already cancelled');
      },
    } as never);
    expect(signal.aborted).toBe(true);
  });

  it('puts a deadline on every call', async () => {
    const error = (await client.rpc
      .echo({ text: 'slow', delayMs: 1_000 }, { deadlineMs: 50 })
      .catch((e: unknown) => e)) as PlatformError;
    expect(error.kind).toBe('deadline_exceeded');
  });

  it('cancels a call when its signal aborts', async () => {
    const controller = new AbortController();
    const pending = client.rpc.echo({ text: 'slow', delayMs: 1_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('spreads calls over every replica the address names', async () => {
    const replicas = await Promise.all(
      ['one', 'two'].map(async (name) => {
        const replica = new GrpcServer({ host: '127.0.0.1', port: 0, logger, transport: serverTransport });
        replica.addService(
          'test.v1.EchoService',
          definition,
          { echo: unaryHandler<EchoRequest, EchoResponse>(logger, 'echo', async () => ({ text: name })) },
          callers,
        );
        return { replica, port: await replica.start() };
      }),
    );
    const spread = createGrpcClient(
      EchoClient,
      definition,
      `ipv4:${replicas.map((r) => `127.0.0.1:${r.port}`).join(',')}`,
      { defaultDeadlineMs: 2_000, transport: callerTransport, server: 'echo' },
    );
    // Round robin over the replicas that are connected: once both are, calls alternate.
    const seen = new Set<string>();
    for (let i = 0; i < 100 && seen.size < 2; i++) seen.add((await spread.rpc.echo({ text: 'who' })).text);
    expect(seen).toEqual(new Set(['one', 'two']));
    spread.close();
    await Promise.all(replicas.map((r) => r.replica.stop(1_000)));
  });

  it('answers grpc.health.v1 checks for the server and each service', async () => {
    const probe = new GrpcHealthProbe(address, callerTransport, 'echo');
    expect(await probe.isServing('', 1_000)).toBe(true);
    expect(await probe.isServing('test.v1.EchoService', 1_000)).toBe(true);
    expect(await probe.isServing('no.such.Service', 1_000)).toBe(false);
    server.setServing(false);
    expect(await probe.isServing('test.v1.EchoService', 1_000)).toBe(false);
    server.setServing(true);
    probe.close();
  });

  it('answers health on the plaintext health port, and nothing else there', async () => {
    const plaintext = new PlaintextTransport();
    const probe = new GrpcHealthProbe(`127.0.0.1:${server.healthPort}`, plaintext, 'echo');
    expect(await probe.isServing('test.v1.EchoService', 1_000)).toBe(true);
    probe.close();
    const sneaky = createGrpcClient(EchoClient, definition, `127.0.0.1:${server.healthPort}`, {
      defaultDeadlineMs: 2_000,
      transport: plaintext,
      server: 'echo',
    });
    await expect(sneaky.rpc.echo({ text: 'hi' })).rejects.toThrow(/does not implement/);
    sneaky.close();
  });
});

describe('service identities', () => {
  const echoOnce = async (transport: MutualTlsTransport | PlaintextTransport, server = 'echo'): Promise<unknown> => {
    const other = createGrpcClient(EchoClient, definition, address, { defaultDeadlineMs: 2_000, transport, server });
    try {
      return await other.rpc.echo({ text: 'hi' });
    } catch (err) {
      return err;
    } finally {
      other.close();
    }
  };

  it('refuses a client without TLS', async () => {
    expect(await echoOnce(new PlaintextTransport())).toMatchObject({ kind: 'unavailable' });
  });

  it('refuses a client whose certificate another CA issued, even with an allowed name', async () => {
    const foreign = await createServicePki({ dir: mkdtempSync(join(tmpdir(), 'foreign-pki-')) });
    expect(await echoOnce(new MutualTlsTransport(await foreign.issue('caller')))).toMatchObject({
      kind: 'unavailable',
    });
  });

  it('answers PERMISSION_DENIED to a platform service the method does not list', async () => {
    expect(await echoOnce(new MutualTlsTransport(await testCertificates('intruder')))).toMatchObject({
      kind: 'permission_denied',
    });
  });

  it('lets a listed caller through', async () => {
    expect(await echoOnce(new MutualTlsTransport(await testCertificates('caller')))).toEqual({ text: 'HI' });
  });

  it('does not talk to a server that proves to be another service', async () => {
    expect(await echoOnce(callerTransport, 'orchestrator')).toMatchObject({ kind: 'unavailable' });
  });

  it('refuses at registration a service whose table misses a method', () => {
    const incomplete = new GrpcServer({ host: '127.0.0.1', port: 0, logger, transport: serverTransport });
    expect(() => incomplete.addService('test.v1.EchoService', definition, {}, {} as typeof callers)).toThrow(
      /no caller allowlist for gRPC method \/test.v1.EchoService\/Echo/,
    );
  });
});
