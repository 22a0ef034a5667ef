import { orchestratorV1 } from '@platform/proto';
import {
  connectNats,
  createLogger,
  errors,
  GrpcServer,
  MutualTlsTransport,
  PlatformError,
  unaryHandler,
  type CallerTable,
  type NatsConnection,
} from '@platform/service-kit';
import { testCertificates } from '@platform/testing';
import { sharedInfra } from '@platform/testing/vitest';
import { ToolClient, type ToolCallAnswer } from '@platform/tool-sdk';

const testLogger = createLogger({ service: 'relay-tool-gate', level: 'silent' });

/**
 * The orchestrator's tool gate at the wire (CallTool, CallToolBatch) for the trigger's own tests:
 * it admits every call except those of the tools in `refused` (code per tool), and relays the
 * others to the runners over NATS. The gate's real rules are the orchestrator's, tested there and
 * through every service in test/e2e/src/tool-gate.test.ts; here the trigger's side is under test
 * (what it asks, how it batches, how it reads the answers).
 */
export class RelayToolGate {
  readonly requests: orchestratorV1.CallToolRequest[] = [];
  readonly batches: orchestratorV1.CallToolRequest[][] = [];
  /** Tools the gate refuses, with the gRPC kind and code it answers. */
  readonly refused = new Map<string, { kind: 'failed_precondition' | 'permission_denied'; code: string }>();
  private nc: NatsConnection | undefined;
  private tools: ToolClient | undefined;

  async connect(natsUrl = sharedInfra().natsUrl): Promise<void> {
    this.nc = await connectNats({ servers: natsUrl, name: 'relay-tool-gate', logger: testLogger });
    this.tools = new ToolClient({ nc: this.nc, logger: testLogger });
  }

  async close(): Promise<void> {
    await this.nc?.drain();
  }

  handlers(): Pick<orchestratorV1.OrchestratorServiceServer, 'callTool' | 'callToolBatch'> {
    return {
      callTool: unaryHandler<orchestratorV1.CallToolRequest, orchestratorV1.CallToolResponse>(
        testLogger,
        'CallTool',
        async (request) => {
          this.requests.push(request);
          this.refuse(request);
          if (request.dryRun) return { call: undefined };
          const answer = await this.client().call(this.input(request));
          if (answer.status === 'failed' && answer.error.code === 'RUNNER_UNAVAILABLE')
            throw errors.unavailable('RUNNER_UNAVAILABLE', answer.error.message);
          return { call: resultOf(request, answer) };
        },
      ),
      callToolBatch: unaryHandler<orchestratorV1.CallToolBatchRequest, orchestratorV1.CallToolBatchResponse>(
        testLogger,
        'CallToolBatch',
        async ({ calls }) => {
          this.batches.push(calls);
          const first = calls[0]!;
          const outcome = await this.client().callBatch({
            toolName: first.toolName,
            calls: calls.map((c) => ({
              ...this.input(c),
              arguments: JSON.parse(c.argumentsJson) as Record<string, unknown>,
            })),
          });
          const answers = await Promise.all(
            calls.map(async (c, i) => {
              const answer = outcome.status === 'answered' ? outcome.answers[i]! : undefined;
              return !answer || answer.status === 'busy' ? this.client().call(this.input(c)) : answer;
            }),
          );
          return { results: calls.map((c, i) => resultOf(c, answers[i]!)) };
        },
      ),
    };
  }

  private refuse(request: orchestratorV1.CallToolRequest): void {
    const refusal = this.refused.get(request.toolName);
    if (!refusal) return;
    throw new PlatformError(refusal.kind, refusal.code, `'${request.toolName}' is refused`);
  }

  private client(): ToolClient {
    if (!this.tools) throw new Error('RelayToolGate.connect() first');
    return this.tools;
  }

  private input(request: orchestratorV1.CallToolRequest) {
    return {
      toolName: request.toolName,
      arguments: JSON.parse(request.argumentsJson || '{}') as Record<string, unknown>,
      callId: request.callId,
      tenantId: request.tenantId,
      conversationId: request.conversationId || request.callId,
      deadlineAt: Date.now() + Number(request.timeoutMs || 10_000),
    };
  }

  /** A standalone gRPC server with only these handlers; resolves with its address. */
  async serve(): Promise<{ address: string; stop: () => Promise<void> }> {
    const server = new GrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger: testLogger,
      transport: new MutualTlsTransport(await testCertificates('orchestrator')),
    });
    server.addService(
      'orchestrator.v1.OrchestratorService',
      orchestratorV1.OrchestratorServiceService,
      this.handlers(),
      RELAY_CALLERS,
    );
    const port = await server.start();
    return { address: `127.0.0.1:${port}`, stop: () => server.stop(100) };
  }
}

function resultOf(request: orchestratorV1.CallToolRequest, answer: ToolCallAnswer): orchestratorV1.ToolCallResult {
  const base = {
    callId: request.callId,
    toolName: request.toolName,
    truncated: false,
    durationMs: 0,
    runner: '',
    argumentsJson: request.argumentsJson,
    startedAt: undefined,
    finishedAt: undefined,
  };
  if (answer.status === 'success')
    return {
      ...base,
      status: 'success',
      outputJson: JSON.stringify(answer.output ?? null),
      errorCode: '',
      errorMessage: '',
    };
  const status = answer.status === 'busy' ? 'failed' : answer.status;
  return { ...base, status, outputJson: '', errorCode: answer.error.code, errorMessage: answer.error.message };
}

type OrchestratorMethod = keyof typeof orchestratorV1.OrchestratorServiceService;

/** A caller table for a stand-in orchestrator: the trigger (the caller under test) may call `methods`, nobody the rest. */
export function triggerCallers(
  methods: readonly OrchestratorMethod[],
): CallerTable<typeof orchestratorV1.OrchestratorServiceService> {
  const table = Object.fromEntries(
    Object.keys(orchestratorV1.OrchestratorServiceService).map((name) => [
      name,
      methods.includes(name as OrchestratorMethod) ? ['trigger'] : [],
    ]),
  );
  return table as unknown as CallerTable<typeof orchestratorV1.OrchestratorServiceService>;
}

/** Only the gate's methods are served. */
const RELAY_CALLERS = triggerCallers(['callTool', 'callToolBatch']);
