import { connect } from '@nats-io/transport-node';
import { createSuiteDatabase, sharedInfra } from '@platform/testing/vitest';
import { AgentPoolConfig } from '../config.js';
import { agentPoolV1 } from '@platform/proto';
import {
  createGrpcClient,
  MutualTlsTransport,
  PlatformError,
  type GrpcClientHandle,
  type NatsConnection,
} from '@platform/service-kit';
import { sharedServicePki, testCertificates } from '@platform/testing';
import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';

export type PoolClient = GrpcClientHandle<agentPoolV1.AgentPoolServiceClient>;

/** A client of a pool server, calling as the orchestrator does (mutual TLS, identity `orchestrator`). */
export async function poolClient(port: number): Promise<PoolClient> {
  const transport = new MutualTlsTransport(await testCertificates('orchestrator'));
  return createGrpcClient(
    agentPoolV1.AgentPoolServiceClient,
    agentPoolV1.AgentPoolServiceService,
    `127.0.0.1:${port}`,
    { defaultDeadlineMs: 10_000, transport, server: 'agent-pool' },
  );
}

export function connectTestNats(url: string): Promise<NatsConnection> {
  return connect({ servers: url, name: 'agent-pool-test' });
}

/** A name unique to this test run (tool subjects and tenants are shared by every suite on the NATS server). */
export function unique(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

export interface StartOptions {
  conversationId?: string;
  runId?: string;
  source?: agentPoolV1.AgentSource;
  /** A plain tool that requires approval (StartAgent's approval_gate). */
  approvalGate?: boolean;
  /** A decision the platform asks the user for (StartAgent's user_decision). */
  userDecision?: agentPoolV1.UserDecision;
}

export function startRequest(
  tenantId: string,
  agentName: string,
  callId: string,
  args: Record<string, unknown>,
  options: StartOptions = {},
): agentPoolV1.StartAgentRequest {
  return {
    tenantId,
    conversationId: options.conversationId ?? 'conv-1',
    runId: options.runId ?? 'run-1',
    callId,
    agentName,
    argumentsJson: JSON.stringify(args),
    source: options.source,
    approvalGate: options.approvalGate ?? false,
    userDecision: options.userDecision,
  };
}

/**
 * A pool configuration for an in-process test server: its own database (`label`), the suite's
 * NATS, a free gRPC port and quick discovery, with the suite's own settings on top.
 */
export async function testPoolConfig(label: string, settings: Record<string, string> = {}): Promise<AgentPoolConfig> {
  return AgentPoolConfig.parse({
    ...(await (await sharedServicePki()).env('agent-pool')),
    DATABASE_URL: await createSuiteDatabase(label),
    NATS_URL: sharedInfra().natsUrl,
    GRPC_PORT: '0',
    CATALOG_REFRESH_MS: '200',
    CATALOG_DISCOVERY_WAIT_MS: '100',
    ...settings,
  });
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
