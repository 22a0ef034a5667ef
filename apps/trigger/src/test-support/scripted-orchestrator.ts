import { orchestratorV1 } from '@platform/proto';
import { errors, GrpcServer, MutualTlsTransport, unaryHandler } from '@platform/service-kit';
import { testCertificates } from '@platform/testing';
import { RelayToolGate, triggerCallers } from './relay-tool-gate.js';
import { testLogger } from './trigger-harness.js';

/**
 * The orchestrator's gRPC service at the wire, answering HandleMessage as the test scripts it
 * (the real orchestrator runs in the end-to-end suite, test/e2e/src/triggers.test.ts).
 */
export class ScriptedOrchestrator {
  readonly calls: orchestratorV1.HandleMessageRequest[] = [];
  /** Its CallTool and CallToolBatch: the tool gate, relayed to the runners (connected at start). */
  readonly gate = new RelayToolGate();
  answers: (() => orchestratorV1.HandleMessageResponse)[] = [];
  private server: GrpcServer | undefined;

  async start(natsUrl?: string): Promise<string> {
    await this.gate.connect(natsUrl);
    this.server = new GrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger: testLogger,
      transport: new MutualTlsTransport(await testCertificates('orchestrator')),
    });
    this.server.addService(
      'orchestrator.v1.OrchestratorService',
      orchestratorV1.OrchestratorServiceService,
      {
        ...this.gate.handlers(),
        handleMessage: unaryHandler<orchestratorV1.HandleMessageRequest, orchestratorV1.HandleMessageResponse>(
          testLogger,
          'HandleMessage',
          async (request) => {
            this.calls.push(request);
            const next = this.answers.shift();
            if (!next) throw errors.internal('UNSCRIPTED', 'no answer scripted');
            return { ...next(), runId: request.runId };
          },
        ),
      },
      SCRIPTED_CALLERS,
    );
    return `127.0.0.1:${await this.server.start()}`;
  }

  async stop(): Promise<void> {
    await this.server?.stop(100);
    await this.gate.close();
  }
}

/** The trigger is the caller under test (the orchestrator's own table is in apps/orchestrator). */
const SCRIPTED_CALLERS = triggerCallers(['handleMessage', 'callTool', 'callToolBatch']);

export function runResponse(
  status: string,
  extra: Partial<orchestratorV1.HandleMessageResponse> = {},
): orchestratorV1.HandleMessageResponse {
  return {
    runId: '',
    status,
    stopReason: 'final_answer',
    response: 'Done.',
    turns: 1,
    toolCalls: [],
    durationMs: 3,
    usage: undefined,
    pendingJson: '[]',
    ...extra,
  };
}
