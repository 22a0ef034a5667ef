// Steering across orchestrator replicas (docs/conversations.md, `steer`): the run works on one
// replica and the steering message reaches the other one. The message is recorded in Postgres by
// the replica it reached, the holder is told over NATS and takes it before its next model call;
// the replica the message reached answers with the joined run once it ends. Each message is sent
// straight to the replica chosen (the api would spread them round robin).
import { orchestratorV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import type { ManagedProcess } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, bootPlatform, startRunnerProcess, type SuitePlatform, waitFor, waitForCatalog } from './support.js';

const TENANT = 'steer-replicas';

let platform: SuitePlatform;
let runner: ManagedProcess;
let replicas: Array<GrpcClientHandle<orchestratorV1.OrchestratorServiceClient>> = [];

beforeAll(async () => {
  platform = await bootPlatform('steer_replicas', {
    orchestratorReplicas: 2,
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
  const options = {
    defaultDeadlineMs: 60_000,
    transport: new MutualTlsTransport(await platform.pki.issue('api')),
    server: 'orchestrator',
  };
  replicas = platform.orchestratorPorts.map((port) =>
    createGrpcClient(
      orchestratorV1.OrchestratorServiceClient,
      orchestratorV1.OrchestratorServiceService,
      `127.0.0.1:${port}`,
      options,
    ),
  );
  // Each replica discovers the runner on its own: the api's catalog answers from one of them, and a
  // replica still without `book_slot` would end the booking at once with an unknown-tool result.
  for (const replica of replicas)
    await waitFor('the replica to list book_slot', async () =>
      (await replica.rpc.listTools({ tenantId: TENANT })).tools.some((t) => t.name === 'book_slot') ? true : undefined,
    );
});
afterAll(async () => {
  for (const replica of replicas) replica.close();
  await runner?.kill();
  await platform?.stop();
});

const message = (conversationId: string, content: string, multitask = '') =>
  orchestratorV1.HandleMessageRequest.fromPartial({
    tenantId: TENANT,
    conversationId,
    content,
    runId: `run_${randomUUID()}`,
    subject: `user-of-${TENANT}`,
    multitask,
  });

interface Stored {
  runId: string | null;
  message: { role: string; content?: string | null };
}

it('joins a run that works on another replica: told over NATS, taken before its next model call', async () => {
  const conversationId = 'st-replicas';
  // Replica 0 drains the conversation (nobody did), so the run works there.
  const host = message(conversationId, `[scenario:steer-booking] book me tuesday at ten (${conversationId})`);
  const hosted = replicas[0]!.rpc.handleMessage(host);
  await waitFor('the model to ask for the booking', async () => {
    const { requests } = (await (await fetch(`${platform.llmSimUrl}/_sim/requests`)).json()) as {
      requests: Array<{ scenario: string | null; stepIndex: number | null; status: number | null; body: unknown }>;
    };
    return requests.find(
      (r) =>
        r.scenario === 'steer-booking' &&
        r.stepIndex === 0 &&
        r.status === 200 &&
        JSON.stringify(r.body).includes(`(${conversationId})`),
    );
  });
  const steer = 'make it a window table';
  const steering = message(conversationId, steer, 'steer');
  const answer = await replicas[1]!.rpc.handleMessage(steering);
  expect(answer).toMatchObject({
    runId: host.runId,
    status: 'completed',
    stopReason: 'final_answer',
    steered: true,
    messageRunId: steering.runId,
  });
  expect(answer.response).toContain(`noted: ${steer}`);
  expect((await hosted).response).toBe(answer.response);
  const page = await api<{ messages: Stored[] }>(
    platform,
    'GET',
    `/v1/conversations/${conversationId}/messages`,
    TENANT,
  );
  expect(page.body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  expect(page.body.messages[3]?.message.content).toBe(steer);
  expect(page.body.messages.every((m) => m.runId === host.runId)).toBe(true);
});
