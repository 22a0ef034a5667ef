// Service identities between the platform's services (docs/security.md, "Service identities and
// certificates"): every gRPC server of the real platform requires a client certificate from the
// platform CA and answers each method only to the services its caller table names. The attack of
// issue 34 (a plain gRPC client on the network reads another tenant's run with GetRun) is tried
// the ways an intruder would: no TLS, a certificate of its own CA, a real certificate of a service
// that has no business calling the method.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentPoolV1, credentialV1, memoryV1, orchestratorV1, triggerV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, PlaintextTransport, type GrpcTransport } from '@platform/service-kit';
import { createServicePki } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, type SuitePlatform } from './support.js';

const VICTIM = 'identity-victim';

let platform: SuitePlatform;
let victimRunId: string;

beforeAll(async () => {
  platform = await bootPlatform('service_identity', { env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } } });
  const turn = await api<{ runId: string }>(platform, 'POST', '/v1/conversations/identity-1/messages', VICTIM, {
    content: '[scenario:calculator] What is 6 * 7?',
  });
  expect(turn.status).toBe(200);
  victimRunId = turn.body.runId;
});
afterAll(async () => {
  await platform?.stop();
});

/** GetRun of the victim's run on the real orchestrator, as whoever `transport` makes the caller. */
async function getRunAs(transport: GrpcTransport): Promise<unknown> {
  const client = createGrpcClient(
    orchestratorV1.OrchestratorServiceClient,
    orchestratorV1.OrchestratorServiceService,
    `127.0.0.1:${platform.ports.orchestrator}`,
    {
      defaultDeadlineMs: 5_000,
      transport,
      server: 'orchestrator',
    },
  );
  try {
    return await client.rpc.getRun({ tenantId: VICTIM, runId: victimRunId });
  } catch (err) {
    return err;
  } finally {
    client.close();
  }
}

const as = async (name: string): Promise<MutualTlsTransport> => new MutualTlsTransport(await platform.pki.issue(name));

describe('GetRun of another tenant’s run', () => {
  it('is refused to a plain gRPC client (no TLS): the handshake never completes', async () => {
    const result = await getRunAs(new PlaintextTransport());
    expect(result).toMatchObject({ kind: 'unavailable' });
    expect(JSON.stringify(result)).not.toContain(victimRunId);
  });

  it('is refused to a client whose certificate another CA issued, even one that calls itself the api', async () => {
    const foreign = await createServicePki({ dir: mkdtempSync(join(tmpdir(), 'intruder-pki-')) });
    const result = await getRunAs(new MutualTlsTransport(await foreign.issue('api')));
    expect(result).toMatchObject({ kind: 'unavailable' });
  });

  it('answers PERMISSION_DENIED to a real platform service that is not in the method’s allowlist', async () => {
    for (const service of ['memory', 'credential', 'trigger', 'runner/travel']) {
      expect(await getRunAs(await as(service)), service).toMatchObject({ kind: 'permission_denied' });
    }
  });

  it('answers the api, the one caller GetRun is open to', async () => {
    expect(await getRunAs(await as('api'))).toMatchObject({ runId: victimRunId, status: 'completed' });
  });
});

describe('the other services', () => {
  it('refuse methods to services their tables do not name', async () => {
    const memory = createGrpcClient(
      memoryV1.MemoryServiceClient,
      memoryV1.MemoryServiceService,
      `127.0.0.1:${platform.ports.memory}`,
      { defaultDeadlineMs: 5_000, transport: await as('trigger'), server: 'memory' },
    );
    const pool = createGrpcClient(
      agentPoolV1.AgentPoolServiceClient,
      agentPoolV1.AgentPoolServiceService,
      `127.0.0.1:${platform.ports.agentPool}`,
      { defaultDeadlineMs: 5_000, transport: await as('api'), server: 'agent-pool' },
    );
    const credential = createGrpcClient(
      credentialV1.CredentialServiceClient,
      credentialV1.CredentialServiceService,
      `127.0.0.1:${platform.ports.credential}`,
      { defaultDeadlineMs: 5_000, transport: await as('orchestrator'), server: 'credential' },
    );
    const trigger = createGrpcClient(
      triggerV1.TriggerServiceClient,
      triggerV1.TriggerServiceService,
      `127.0.0.1:${platform.ports.trigger}`,
      { defaultDeadlineMs: 5_000, transport: await as('orchestrator'), server: 'trigger' },
    );
    try {
      const refused = (call: Promise<unknown>) =>
        call.then(
          () => 'answered',
          (err: unknown) => err,
        );
      expect(
        await refused(
          memory.rpc.listMessages({
            tenantId: VICTIM,
            conversationId: 'identity-1',
            afterSeq: 0,
            limit: 10,
            latest: false,
            maxBytes: 0,
          }),
        ),
      ).toMatchObject({ kind: 'permission_denied' });
      expect(
        await refused(
          pool.rpc.startAgent(
            agentPoolV1.StartAgentRequest.fromPartial({ tenantId: VICTIM, agentName: 'x', callId: 'c' }),
          ),
        ),
      ).toMatchObject({ kind: 'permission_denied' });
      expect(
        await refused(
          credential.rpc.listCredentials(credentialV1.ListCredentialsRequest.fromPartial({ tenantId: VICTIM })),
        ),
      ).toMatchObject({ kind: 'permission_denied' });
      expect(
        await refused(trigger.rpc.listTasks(triggerV1.ListTasksRequest.fromPartial({ tenantId: VICTIM }))),
      ).toMatchObject({ kind: 'permission_denied' });
    } finally {
      [memory, pool, credential, trigger].forEach((client) => client.close());
    }
  });

  it('serve their real callers: a turn went through api -> orchestrator -> memory and agent-pool, and history reads back through the api', async () => {
    const history = await api<{ messages: unknown[] }>(
      platform,
      'GET',
      '/v1/conversations/identity-1/messages',
      VICTIM,
    );
    expect(history.status).toBe(200);
    expect(history.body.messages.length).toBeGreaterThanOrEqual(2);
    const ready = await fetch(`${platform.apiUrl}/readyz`);
    expect(ready.status).toBe(200);
  });
});
