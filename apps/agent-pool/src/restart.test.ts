import { freePort, sharedServicePki, startServiceProcess, type ServiceProcess } from '@platform/testing';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import type { NatsConnection } from '@platform/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepCallId } from './entry-store.js';
import { emailAgent, startFakeAgentRunner, type FakeAgentRunner } from './test-support/fake-agent-runner.js';
import { connectTestNats, poolClient, startRequest, unique, type PoolClient } from './test-support/pool-client.js';

const EMAIL = unique('durable_email');
const email = emailAgent(EMAIL);
let nc: NatsConnection;
let runner: FakeAgentRunner;
let env: Record<string, string>;
let port: number;
let running: ServiceProcess | undefined;
let client: PoolClient;

/** Runs the pool's real entry point (from source) as its own process. */
async function boot(): Promise<ServiceProcess> {
  running = await startServiceProcess({ app: 'agent-pool', mode: 'source', telemetry: false, env });
  expect(running.ready['grpcPort']).toBe(port);
  return running;
}

beforeAll(async () => {
  nc = await connectTestNats(sharedInfra().natsUrl);
  runner = await startFakeAgentRunner(nc, [email]);
  port = await freePort();
  env = {
    ...(await (await sharedServicePki()).env('agent-pool')),
    DATABASE_URL: await createSuiteDatabase('agent_pool_restart'),
    NATS_URL: sharedInfra().natsUrl,
    GRPC_PORT: String(port),
    CATALOG_DISCOVERY_WAIT_MS: '100',
    OTEL_SDK_DISABLED: 'true',
    LOG_LEVEL: 'warn',
  };
  client = await poolClient(port);
});

afterAll(async () => {
  client?.close();
  await running?.stop();
  await runner?.stop();
  await nc?.drain();
});

describe('agent pool process', () => {
  it('keeps every entry when killed, even mid-step, and the retried step does not run twice', async () => {
    const tenant = unique('t');
    const first = await boot();
    const { entry } = await client.rpc.startAgent(startRequest(tenant, EMAIL, 'call_durable', { subject: 'Launch' }));
    const waiting = (
      await client.rpc.continueAgent({
        tenantId: tenant,
        entryId: entry!.entryId,
        fieldsJson: '{"to":"all@example.com"}',
        message: '',
      })
    ).entry!;
    expect(waiting.status).toBe('waiting_for_approval');

    // Kill the pool while the approval step runs on the runner.
    runner.delay(1_000);
    const executions = runner.executions;
    const inFlight = client.rpc
      .resolveApproval({
        tenantId: tenant,
        approvalId: waiting.approval!.approvalId,
        decision: 'approve',
        changesJson: '',
        reply: '',
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await expect
      .poll(() => runner.calls.some((c) => c.callId === stepCallId(entry!.entryId, 3)), { timeout: 5_000 })
      .toBe(true);
    await first.kill();
    expect(await inFlight).toMatchObject({ kind: 'unavailable' });
    await expect.poll(() => runner.executions, { timeout: 5_000 }).toBe(executions + 1);
    runner.delay(0);

    await boot();
    const after = (await client.rpc.getAgent({ tenantId: tenant, entryId: entry!.entryId })).entry;
    expect(after).toEqual(waiting);
    expect((await client.rpc.listPending({ tenantId: tenant, conversationId: '' })).entries).toEqual([waiting]);

    const done = (
      await client.rpc.resolveApproval({
        tenantId: tenant,
        approvalId: waiting.approval!.approvalId,
        decision: 'approve',
        changesJson: '',
        reply: '',
      })
    ).entry!;
    expect(done).toMatchObject({ status: 'completed', step: 3 });
    expect(runner.calls.filter((c) => c.callId === stepCallId(entry!.entryId, 3)).map((c) => c.replayed)).toEqual([
      false,
      true,
    ]);
    expect(email.sent).toHaveLength(1);
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const proc = running ?? (await boot());
    await proc.stop();
    expect(await proc.process.waitForExit()).toBe(0);
    running = undefined;
  });
});
