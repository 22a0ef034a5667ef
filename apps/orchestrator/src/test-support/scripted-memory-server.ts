import { memoryV1 } from '@platform/proto';
import {
  createGrpcClient,
  createLogger,
  GrpcServer,
  MutualTlsTransport,
  unaryHandler,
  type CallerTable,
  type GrpcClientHandle,
} from '@platform/service-kit';
import { testCertificates } from '@platform/testing';

/** What the scripted memory server does with the next Recall calls. */
export type RecallScript = (request: memoryV1.RecallRequest) => Promise<Partial<memoryV1.RecallResponse>>;

/**
 * A real gRPC server speaking memory.v1 with scripted Recall answers (and an empty history), for
 * the recall step's tests: delays, errors and stops happen on a real connection, with real
 * deadlines. The memory service itself is tested in apps/memory.
 */
export class ScriptedMemoryServer {
  readonly received: memoryV1.RecallRequest[] = [];
  script: RecallScript = () => Promise.resolve({});
  private server: GrpcServer | undefined;
  private clientHandle: GrpcClientHandle<memoryV1.MemoryServiceClient> | undefined;

  private async serve(): Promise<number> {
    const logger = createLogger({ service: 'scripted-memory', level: 'silent' });
    this.server = new GrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      transport: new MutualTlsTransport(await testCertificates('memory')),
    });
    this.server.addService(
      'memory.v1.MemoryService',
      memoryV1.MemoryServiceService,
      {
        recall: unaryHandler<memoryV1.RecallRequest, memoryV1.RecallResponse>(logger, 'recall', async (request) => {
          this.received.push(request);
          return { ...memoryV1.RecallResponse.fromPartial({}), ...(await this.script(request)) };
        }),
        listMessages: unaryHandler<memoryV1.ListMessagesRequest, memoryV1.ListMessagesResponse>(
          logger,
          'listMessages',
          () => Promise.resolve(memoryV1.ListMessagesResponse.fromPartial({ messages: [], hasMore: false })),
        ),
      },
      ORCHESTRATOR_ONLY,
    );
    return this.server.start();
  }

  /** `127.0.0.1:<port>` once started. */
  address = '';

  /** Starts the server; returns a client of it (closed by stop). */
  async start(): Promise<GrpcClientHandle<memoryV1.MemoryServiceClient>> {
    this.address = `127.0.0.1:${await this.serve()}`;
    this.clientHandle = await memoryClient(this.address);
    return this.clientHandle;
  }

  async stop(): Promise<void> {
    this.clientHandle?.close();
    await this.server?.stop(100);
  }
}

/** A memory.v1 client of `address`, as the orchestrator makes one (mutual TLS, identity `orchestrator`). */
export async function memoryClient(address: string): Promise<GrpcClientHandle<memoryV1.MemoryServiceClient>> {
  const transport = new MutualTlsTransport(await testCertificates('orchestrator'));
  return createGrpcClient(memoryV1.MemoryServiceClient, memoryV1.MemoryServiceService, address, {
    defaultDeadlineMs: 5_000,
    transport,
    server: 'memory',
  });
}

/** The orchestrator is the caller under test (memory's own table is in apps/memory). */
const ORCHESTRATOR_ONLY: CallerTable<typeof memoryV1.MemoryServiceService> = Object.fromEntries(
  Object.keys(memoryV1.MemoryServiceService).map((method) => [method, ['orchestrator']]),
) as unknown as CallerTable<typeof memoryV1.MemoryServiceService>;

/** A recalled fact as the memory service returns it. */
export function recalledFact(
  id: string,
  text: string,
  extra: Partial<memoryV1.RecalledItem> = {},
): memoryV1.RecalledItem {
  return memoryV1.RecalledItem.fromPartial({
    fact: memoryV1.Fact.fromPartial({ factId: id, subject: 'user', predicate: 'prefers', object: text, current: true }),
    score: 0.5,
    matchedBy: ['fulltext#1'],
    why: 'full text rank 1',
    text,
    estimatedTokens: Math.ceil(text.length / 4),
    ...extra,
  });
}
