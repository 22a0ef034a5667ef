import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { credentialV1 } from '@platform/proto';
import {
  createGrpcClient,
  createLogger,
  MutualTlsTransport,
  type GrpcClientHandle,
  type PromiseClient,
} from '@platform/service-kit';
import { sharedServicePki, startServiceProcess, testCertificates, type ServiceProcess } from '@platform/testing';
import { createSuiteDatabase } from '@platform/testing/vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../app.js';
import { TokenVerifier } from '../auth.js';
import { noAgentPool, noAgents, noConversations, noEvents, noTrigger } from './unavailable-ports.js';

/** A real credential service process on its own database, and the api's client of it. */
export interface CredentialEdge {
  process: ServiceProcess;
  client: GrpcClientHandle<credentialV1.CredentialServiceClient>;
  platformToken: string;
  grpcPort: number;
  stop(): Promise<void>;
}

/** Starts the credential service as its own process (`env` adds to its environment: tiers, the egress allowlist). */
export async function startCredentialEdge(label: string, env: Record<string, string> = {}): Promise<CredentialEdge> {
  const { publicKey } = generateKeyPairSync('ed25519');
  const platformToken = randomBytes(24).toString('hex');
  const process = await startServiceProcess({
    app: 'credential',
    mode: 'source',
    telemetry: false,
    env: {
      ...(await (await sharedServicePki()).env('credential')),
      DATABASE_URL: await createSuiteDatabase(label),
      GRPC_PORT: '0',
      LOG_LEVEL: 'warn',
      CREDENTIAL_KEYRING: JSON.stringify({ active: 'k1', keys: { k1: randomBytes(32).toString('base64') } }),
      CREDENTIAL_GRANT_PUBLIC_KEYS: JSON.stringify({
        keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'g1', alg: 'EdDSA' }],
      }),
      CREDENTIAL_PLATFORM_TOKENS: platformToken,
      ...env,
    },
  });
  const grpcPort = Number(process.ready['grpcPort']);
  const client = createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    `127.0.0.1:${grpcPort}`,
    {
      defaultDeadlineMs: 5_000,
      transport: new MutualTlsTransport(await testCertificates('api')),
      server: 'credential',
    },
  );
  return {
    process,
    client,
    platformToken,
    grpcPort,
    async stop() {
      client.close();
      await process.stop();
    },
  };
}

/**
 * The api with only the credential service behind it (credentials, model connections): every
 * other service fails loudly if a route reaches it. `extra` adds the credential ports.
 */
export function credentialEdgeApp(secret: string, extra: Partial<AppOptions>): FastifyInstance {
  return buildApp({
    checkReplies: true,
    logger: createLogger({ service: 'api-test', level: 'silent' }),
    verifier: new TokenVerifier(secret),
    maxBodyBytes: 256 * 1024,
    orchestrator: {} as PromiseClient<never>,
    memory: {} as PromiseClient<never>,
    events: noEvents,
    agentPool: noAgentPool,
    agents: noAgents,
    conversations: noConversations,
    trigger: noTrigger,
    limits: { maxMessageChars: 100, turnWaitMs: 1_000, sseHeartbeatMs: 1_000 },
    health: { dependencies: {}, probeTimeoutMs: 200, isAccepting: () => true },
    ...extra,
  });
}
