// Models the tenant brings, end to end: a tenant registers its own endpoint (a second llm-sim
// that checks the tenant's key) through the api, an agent of that tenant names the connection,
// and its turns are answered there, never by the platform's model. Another tenant can neither name
// the connection in its agents nor reach it; a URL that reaches inside is refused at write.
import { randomBytes } from 'node:crypto';
import { agentsV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import { freePort, startServiceProcess, type ServiceProcess } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bootPlatform, type SuitePlatform, type TurnJson } from './support.js';

const OWNER = 'byom-owner';
const OTHER = 'byom-other';
/** Model connections are written by the tenant's admins (docs/access.md). */
const OWNER_ADMIN = { tenant: OWNER, roles: ['admin'] };
const TENANT_KEY = `sk-byom-${randomBytes(12).toString('hex')}`;

let platform: SuitePlatform;
let endpoint: ServiceProcess;
let endpointUrl: string;
let agents: GrpcClientHandle<agentsV1.AgentServiceClient>;

beforeAll(async () => {
  // The tenant's endpoint listens on loopback: the operator admits exactly that address, on the
  // credential service (checked at write) and the orchestrator (vetted at connect).
  const loopback = { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' };
  platform = await bootPlatform('model_connections', { env: { credential: loopback, orchestrator: loopback } });
  endpoint = await startServiceProcess({
    app: 'llm-sim',
    mode: 'source',
    telemetry: false,
    env: { LLM_SIM_PORT: String(await freePort()), LLM_SIM_API_KEY: TENANT_KEY, LOG_LEVEL: 'warn' },
  });
  endpointUrl = `${String(endpoint.ready['url'])}/v1`;
  // Agents are written through the orchestrator's AgentService, as the api does.
  agents = createGrpcClient(
    agentsV1.AgentServiceClient,
    agentsV1.AgentServiceService,
    `127.0.0.1:${platform.ports.orchestrator}`,
    {
      defaultDeadlineMs: 10_000,
      transport: new MutualTlsTransport(await platform.pki.issue('api')),
      server: 'orchestrator',
    },
  );
}, 180_000);
afterAll(async () => {
  agents?.close();
  await endpoint?.stop();
  await platform?.stop();
});

function createAgent(tenantId: string, spec: Record<string, unknown>) {
  return agents.rpc.createAgent({
    caller: { tenantId, subject: `user-of-${tenantId}`, tier: '' },
    specJson: JSON.stringify(spec),
    draft: false,
  });
}

interface SimRequest {
  structuredReply: string | null;
  body: { messages: Array<{ role: string; content: unknown }> };
}

/** Whether an llm-sim answered a turn's chat completion (not memory's extraction, which quotes the conversation) naming `marker`. */
async function answeredTurnWith(simUrl: string, marker: string): Promise<boolean> {
  const { requests } = (await (await fetch(`${simUrl}/_sim/requests`)).json()) as { requests: SimRequest[] };
  return requests
    .filter((r) => r.structuredReply === null)
    .some((r) =>
      r.body.messages.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(marker)),
    );
}

describe('an agent on the model its tenant brings', () => {
  it("answers from the tenant's endpoint with the tenant's key, not from the platform's model", async () => {
    const created = await api(platform, 'POST', '/v1/model-connections', OWNER_ADMIN, {
      name: 'own-llm',
      baseUrl: endpointUrl,
      apiKey: TENANT_KEY,
      models: ['sim-1'],
    });
    expect(created.status).toBe(201);
    await createAgent(OWNER, {
      name: 'byom-agent',
      instructions: 'You answer briefly.',
      model: 'sim-1',
      modelConnection: 'own-llm',
      tools: [],
    });
    const marker = `byom-${randomBytes(6).toString('hex')}`;
    const turn = await api<TurnJson>(platform, 'POST', '/v1/conversations/byom-1/messages', OWNER, {
      content: `Hello ${marker}`,
      profile: 'byom-agent',
    });
    expect(turn.status, JSON.stringify(turn.body)).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(await answeredTurnWith(String(endpoint.ready['url']), marker)).toBe(true);
    expect(await answeredTurnWith(platform.llmSimUrl!, marker)).toBe(false);
  });

  it("refuses another tenant's agent naming the connection, and keeps the connection out of its reach", async () => {
    const refused = await createAgent(OTHER, {
      name: 'borrower',
      instructions: 'You answer briefly.',
      model: 'sim-1',
      modelConnection: 'own-llm',
      tools: [],
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({ code: 'INVALID_AGENT_SPEC' });
    expect((await api(platform, 'GET', '/v1/model-connections/own-llm', OTHER)).status).toBe(404);
    expect(
      (await api<{ connections: unknown[] }>(platform, 'GET', '/v1/model-connections', OTHER)).body.connections,
    ).toEqual([]);
  });

  it('refuses a loopback or private URL at write', async () => {
    const port = new URL(endpointUrl).port;
    for (const baseUrl of [`http://localhost:${port}/v1`, 'http://10.9.8.7/v1', 'http://169.254.169.254/v1']) {
      const answer = await api<{ error: { code: string } }>(platform, 'POST', '/v1/model-connections', OWNER_ADMIN, {
        name: 'inside',
        baseUrl,
        apiKey: TENANT_KEY,
      });
      expect(answer, baseUrl).toMatchObject({ status: 400, body: { error: { code: 'EGRESS_REFUSED' } } });
    }
  });
});
