import { triggerV1 } from '@platform/proto';
import {
  createGrpcClient,
  createLogger,
  MutualTlsTransport,
  PlatformError,
  type GrpcClientHandle,
} from '@platform/service-kit';
import { sharedServicePki, testCertificates } from '@platform/testing';
import { expect } from 'vitest';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import { ManualClock } from '../clock.js';
import { TriggerConfig } from '../config.js';
import type { ExecutionOutcome, FireContext, FireExecutor } from '../executors/fire-executor.js';
import { startTriggerServer, type TriggerServer } from '../server.js';
import { RelayToolGate } from './relay-tool-gate.js';

export const testLogger = createLogger({ service: 'trigger-test', level: process.env['TRIGGER_TEST_LOG'] ?? 'silent' });

export type TriggerClient = GrpcClientHandle<triggerV1.TriggerServiceClient>;

/** A client of a trigger replica, calling as the api does (mutual TLS, identity `api`). */
export async function triggerClient(port: number): Promise<TriggerClient> {
  const transport = new MutualTlsTransport(await testCertificates('api'));
  return createGrpcClient(triggerV1.TriggerServiceClient, triggerV1.TriggerServiceService, `127.0.0.1:${port}`, {
    defaultDeadlineMs: 10_000,
    transport,
    server: 'trigger',
  });
}

/** A trigger configuration for in-process test replicas: the suite's NATS, a free gRPC port, the given database. */
export async function testTriggerConfig(
  databaseUrl: string,
  settings: Record<string, string> = {},
): Promise<TriggerConfig> {
  return TriggerConfig.parse({
    ...(await (await sharedServicePki()).env('trigger')),
    DATABASE_URL: databaseUrl,
    NATS_URL: sharedInfra().natsUrl,
    GRPC_PORT: '0',
    ORCHESTRATOR_ADDRESS: '127.0.0.1:1',
    TRIGGER_MISFIRE_GRACE_MS: '30000',
    TRIGGER_PLAN_AHEAD_MS: '0',
    ...settings,
  });
}

/** An executor that records every call and answers with what the test scripted (success by default). */
class RecordingExecutor implements FireExecutor {
  readonly calls: FireContext[] = [];
  answer: (fire: FireContext) => ExecutionOutcome | Promise<ExecutionOutcome> = () => ({
    status: 'succeeded',
    result: { ok: true },
  });

  async execute(fire: FireContext): Promise<ExecutionOutcome> {
    this.calls.push(fire);
    return this.answer(fire);
  }

  callsOf(taskId: string): FireContext[] {
    return this.calls.filter((c) => c.taskId === taskId);
  }
}

/** Replicas sharing one database and one manual clock, their engines driven by the test. */
export interface Replicas {
  clock: ManualClock;
  databaseUrl: string;
  executor: RecordingExecutor;
  servers: TriggerServer[];
  client: TriggerClient;
  /** The orchestrator's tool gate as these replicas reach it, unless the suite gave its own ORCHESTRATOR_ADDRESS. */
  gate: RelayToolGate;
  /** One round on every replica at once: plan, claim, and wait for executions to settle. */
  round(): Promise<void>;
  stop(): Promise<void>;
}

/** With `realExecutors`, replicas use the orchestrator and NATS executors; otherwise the recording one. */
export async function startReplicas(
  count: number,
  startAt: string,
  settings: Record<string, string> = {},
  realExecutors = false,
): Promise<Replicas> {
  // NATS_URL in settings: a suite's own server (external events are one durable consumer per server).
  const clock = new ManualClock(Date.parse(startAt));
  const executor = new RecordingExecutor();
  const databaseUrl = await createSuiteDatabase('trigger');
  const servers: TriggerServer[] = [];
  // Task tools are checked and called through the orchestrator's tool gate: a relay stands in for it.
  const gate = new RelayToolGate();
  if (!settings['ORCHESTRATOR_ADDRESS']) await gate.connect(settings['NATS_URL']);
  const relay = settings['ORCHESTRATOR_ADDRESS'] ? undefined : await gate.serve();
  const address: Record<string, string> = relay ? { ORCHESTRATOR_ADDRESS: relay.address } : {};
  for (let i = 0; i < count; i++) {
    servers.push(
      await startTriggerServer(
        await testTriggerConfig(databaseUrl, { TRIGGER_REPLICA_ID: `replica-${i}`, ...address, ...settings }),
        testLogger,
        { clock, startEngine: false, executor: realExecutors ? undefined : executor },
      ),
    );
  }
  const client = await triggerClient(servers[0]!.port);
  return {
    clock,
    databaseUrl,
    executor,
    servers,
    client,
    gate,
    async round() {
      await Promise.all(servers.map((s) => s.engine.planner.planDue()));
      await Promise.all(servers.map((s) => s.engine.dispatcher.dispatchDue()));
      await Promise.all(servers.map((s) => s.engine.dispatcher.idle()));
    },
    async stop() {
      client.close();
      await Promise.all(servers.map((s) => s.stop()));
      await relay?.stop();
      await gate.close();
    },
  };
}

/** The PlatformError a call is refused with (the test fails when the call succeeds or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}
