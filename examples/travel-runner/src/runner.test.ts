// The travel runner over the wire, as the orchestrator and the agent pool use it: a private
// nats-server and redis-server, discovery through ToolCatalog, calls through ToolClient.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { AgentStepInput, AgentStepOutput, ToolCallResponse } from '@platform/contracts';
import {
  connectNats,
  createLogger,
  createRedis,
  loadConfig,
  type NatsConnection,
  type Redis,
} from '@platform/service-kit';
import { Metadata } from '@grpc/grpc-js';
import { credentialV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport, type GrpcClientHandle } from '@platform/service-kit';
import {
  generateCredentialKeys,
  sharedServicePki,
  startNatsServer,
  startPostgresServer,
  startRedisServer,
  startServiceProcess,
  testCertificates,
  type NatsServerHandle,
  type PostgresServerHandle,
  type RedisServerHandle,
  type ServiceProcess,
} from '@platform/testing';
import {
  CredentialGrantIssuer,
  readAgentStepOutput,
  REPLAYED_HEADER,
  ToolCatalog,
  ToolClient,
  type ToolRunner,
} from '@platform/tool-sdk';
import type { JWK } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TravelRunnerConfig } from './config.js';
import { Outbox, type OutboxRecord } from './outbox.js';
import { RUNNER_NAME, serveTravelRunner } from './runner.js';
import { AIRPORT_CODE_REASON, flightSearchAgent } from './tools/flight-search.js';
import { RECIPIENT_REASON, sendEmailAgent } from './tools/send-email.js';

const logger = createLogger({ service: 'travel-runner-test', level: 'silent' });
let nats: NatsServerHandle;
let redisServer: RedisServerHandle;
let nc: NatsConnection;
let redis: Redis;
let runner: ToolRunner;
let client: ToolClient;
let outboxDir: string;
let postgres: PostgresServerHandle;
let credentialService: ServiceProcess;
let credentials: GrpcClientHandle<credentialV1.CredentialServiceClient>;
let issuer: CredentialGrantIssuer;
const keys = generateCredentialKeys();
const MAIL_TOKEN = 'ya29.TRAVEL-MAIL-TOKEN';

beforeAll(async () => {
  [nats, redisServer, postgres] = await Promise.all([startNatsServer(), startRedisServer(), startPostgresServer()]);
  credentialService = await startServiceProcess({
    app: 'credential',
    mode: 'source',
    telemetry: false,
    env: {
      ...(await (await sharedServicePki()).env('credential')),
      DATABASE_URL: await postgres.createDatabase('travel'),
      GRPC_PORT: '0',
      LOG_LEVEL: 'warn',
      CREDENTIAL_KEYRING: keys.keyring,
      CREDENTIAL_GRANT_PUBLIC_KEYS: keys.grantPublicKeys,
      CREDENTIAL_PLATFORM_TOKENS: keys.platformToken,
    },
  });
  const credentialAddress = `127.0.0.1:${String(credentialService.ready['grpcPort'])}`;
  credentials = createGrpcClient(
    credentialV1.CredentialServiceClient,
    credentialV1.CredentialServiceService,
    credentialAddress,
    {
      defaultDeadlineMs: 5_000,
      transport: new MutualTlsTransport(await testCertificates('api')),
      server: 'credential',
    },
  );
  issuer = await CredentialGrantIssuer.fromJwk(JSON.parse(keys.grantSigningKey) as JWK);
  // The app stored acme's Gmail token after its OAuth flow (as PUT /v1/credentials/google/primary does).
  const platform = new Metadata();
  platform.set('authorization', `Bearer ${keys.platformToken}`);
  await credentials.rpc.saveCredential(
    {
      tenantId: 'acme',
      service: 'google',
      account: '',
      secretJson: JSON.stringify({ access_token: MAIL_TOKEN }),
      expectedVersion: undefined,
      grant: '',
      callId: '',
      actor: undefined,
    },
    { metadata: platform },
  );
  outboxDir = await mkdtemp(path.join(os.tmpdir(), 'travel-outbox-'));
  nc = await connectNats({ servers: nats.url, name: 'travel-runner-test', logger });
  redis = createRedis({ url: redisServer.url, name: 'travel-runner-test', logger });
  const config = loadConfig(TravelRunnerConfig, {
    NATS_URL: nats.url,
    REDIS_URL: redisServer.url,
    OUTBOX_DIR: outboxDir,
    CREDENTIAL_ADDRESS: credentialAddress,
    ...(await (await sharedServicePki()).env('runner/travel')),
  });
  runner = await serveTravelRunner({ nc, redis, config, logger });
  client = new ToolClient({ nc, logger });
});

afterAll(async () => {
  await runner?.stop(1_000);
  await nc?.close();
  redis?.disconnect();
  credentials?.close();
  await credentialService?.stop();
  await Promise.all([nats?.stop(), redisServer?.stop(), postgres?.stop()]);
  if (outboxDir) await rm(outboxDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await rm(outboxDir, { recursive: true, force: true });
});

/** The grant the orchestrator gives `send_email`'s calls: for the model's call (the step id without `:<step>`). */
function grantFor(toolName: string, callId: string, tenantId: string): Promise<string> | undefined {
  if (toolName !== 'send_email') return undefined;
  return issuer.issue({
    tenantId,
    runId: 'run-1',
    callId: callId.replace(/:\d+$/, ''),
    tool: toolName,
    services: ['google'],
    ttlSeconds: 60,
  });
}

/** One call or agent step, as the orchestrator (start) or the agent pool (later steps) sends it. */
async function call(
  toolName: string,
  callId: string,
  args: Record<string, unknown>,
  agent?: AgentStepInput,
  tenantId = 'acme',
): Promise<ToolCallResponse> {
  const credentialGrant = await grantFor(toolName, callId, tenantId);
  return client.call({
    toolName,
    arguments: args,
    ...(agent ? { agent } : {}),
    ...(credentialGrant ? { credentialGrant } : {}),
    callId,
    tenantId,
    conversationId: 'trip-1',
    deadlineAt: Date.now() + 5_000,
  });
}

/** Sends a step by hand, to see the `Platform-Replayed` reply header that ToolClient does not expose. */
async function rawStep(
  toolName: string,
  callId: string,
  agent: AgentStepInput,
): Promise<{ response: ToolCallResponse; replayed: boolean }> {
  const h = natsHeaders();
  h.set('Platform-Call-Id', callId);
  h.set('Platform-Tenant', 'acme');
  h.set('Platform-Conversation', 'trip-1');
  h.set('Platform-Deadline', String(Date.now() + 5_000));
  const grant = await grantFor(toolName, callId, 'acme');
  if (grant) h.set('Platform-Credential-Grant', grant);
  const reply = await nc.request(`platform.tool.${toolName}`, JSON.stringify({ arguments: {}, agent }), {
    timeout: 6_000,
    headers: h,
  });
  return { response: reply.json<ToolCallResponse>(), replayed: reply.headers?.get(REPLAYED_HEADER) === 'true' };
}

function stepOutput(response: ToolCallResponse): AgentStepOutput {
  const output = readAgentStepOutput(response);
  if (!output) throw new Error(`not an agent step output: ${JSON.stringify(response)}`);
  return output;
}

function expectState<S extends AgentStepOutput['state']>(
  output: AgentStepOutput,
  state: S,
): Extract<AgentStepOutput, { state: S }> {
  expect(output.state).toBe(state);
  return output as Extract<AgentStepOutput, { state: S }>;
}

async function outboxFiles(): Promise<OutboxRecord[]> {
  const names = await readdir(outboxDir).catch(() => []);
  const emails = names.filter((name) => name.endsWith('.json'));
  return Promise.all(
    emails.map(async (name) => JSON.parse(await readFile(path.join(outboxDir, name), 'utf8')) as OutboxRecord),
  );
}

const FLIGHT_SUMMARY = /^(UA|AA|DL|B6|AS) \d{3} SFO->JFK \d{2}:\d{2} \$\d+$/;

describe('discovery', () => {
  it('publishes the tools, the agent-tools and their schema versions', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    expect(catalog.list().map((t) => t.name)).toEqual(['flight_search', 'get_weather', 'send_email', 'weather_digest']);
    expect(catalog.get('flight_search')).toMatchObject({
      runner: RUNNER_NAME,
      kind: 'agent',
      agentSchemaVersion: flightSearchAgent().schemaVersion,
      requiresApproval: false,
      sideEffect: 'none',
      dedupe: false,
    });
    expect(catalog.get('send_email')).toMatchObject({
      runner: RUNNER_NAME,
      kind: 'agent',
      agentSchemaVersion: sendEmailAgent(new Outbox(outboxDir)).schemaVersion,
      requiresApproval: true,
      sideEffect: 'external',
      dedupe: true,
    });
    expect(catalog.get('send_email')?.description).toContain('[Requires user confirmation before execution]');
    expect(catalog.get('get_weather')).toMatchObject({ runner: RUNNER_NAME, kind: 'tool', sideEffect: 'none' });
    expect(catalog.get('get_weather')).not.toHaveProperty('agentSchemaVersion');
    // Only the executor is declared one: a trigger task may name it, and no other tool, as its executor.
    expect(catalog.get('weather_digest')).toMatchObject({ kind: 'tool', executor: true, sideEffect: 'none' });
    for (const name of ['flight_search', 'get_weather', 'send_email'])
      expect(catalog.get(name)).not.toHaveProperty('executor');
  });

  it('tells the model the airport rule and that no field is required', async () => {
    const catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 300 });
    await catalog.refresh();
    const schema = catalog.get('flight_search')?.inputSchema as {
      properties: Record<string, { description: string }>;
      required?: string[];
    };
    expect(schema.properties['origin']?.description).toContain('(3-letter IATA airport code)');
    expect(schema.properties['passengers']?.description).toContain('default 1');
    expect(schema.required ?? []).toEqual([]);
  });
});

describe('flight_search (agent-tool without approval)', () => {
  it('waits for the destination, then searches once the user gives it', async () => {
    const start = expectState(
      stepOutput(await call('flight_search', 'call-f1:0', { origin: 'SFO', date: 'next Friday' })),
      'waiting_for_input',
    );
    expect(start.missing).toEqual([
      { name: 'destination', description: 'Arrival airport (3-letter IATA airport code)' },
    ]);
    expect(start.prompt).toContain('- destination: Arrival airport');
    expect(start.collected).toEqual({ origin: 'SFO', date: 'next Friday', passengers: 1 });

    const input: AgentStepInput = {
      phase: 'input',
      collected: start.collected,
      fields: { destination: 'JFK' },
      message: 'to JFK',
    };
    const done = expectState(stepOutput(await call('flight_search', 'call-f1:1', {}, input)), 'completed');
    const result = done.result as {
      notice: string;
      passengers: number;
      options: { summary: string; totalUsd: number; pricePerPassengerUsd: number }[];
    };
    expect(result.notice).toMatch(/made up/);
    expect(result.options).toHaveLength(3);
    for (const option of result.options) expect(option.summary).toMatch(FLIGHT_SUMMARY);

    // Fake but deterministic: the same search gives the same flights.
    const again = expectState(
      stepOutput(await call('flight_search', 'call-f2:0', { origin: 'SFO', destination: 'JFK', date: 'next Friday' })),
      'completed',
    );
    expect(again.result).toEqual(done.result);
  });

  it('prices every passenger', async () => {
    const one = expectState(
      stepOutput(await call('flight_search', 'call-f3:0', { origin: 'SFO', destination: 'JFK', date: 'next Friday' })),
      'completed',
    );
    const three = expectState(
      stepOutput(
        await call('flight_search', 'call-f4:0', {
          origin: 'SFO',
          destination: 'JFK',
          date: 'next Friday',
          passengers: 3,
        }),
      ),
      'completed',
    );
    const [first] = (one.result as { options: { totalUsd: number }[] }).options;
    const [firstOfThree] = (three.result as { options: { totalUsd: number }[] }).options;
    expect(firstOfThree!.totalUsd).toBe(3 * first!.totalUsd);
  });

  it('asks again for an origin that is not an airport code, with the reason', async () => {
    const out = expectState(
      stepOutput(
        await call('flight_search', 'call-f5:0', { origin: 'San Francisco', destination: 'JFK', date: '2026-12-04' }),
      ),
      'waiting_for_input',
    );
    expect(out.missing).toEqual([
      { name: 'origin', description: 'Departure airport (3-letter IATA airport code)', reason: AIRPORT_CODE_REASON },
    ]);
    expect(out.prompt).toContain(`"San Francisco" was not accepted: ${AIRPORT_CODE_REASON}`);
    expect(out.collected).not.toHaveProperty('origin');
  });
});

describe('get_weather (plain tool)', () => {
  it('answers a made-up forecast that only depends on the city and date', async () => {
    const response = await call('get_weather', 'call-w1', { city: 'New York', date: 'next Friday' });
    expect(response).toMatchObject({
      status: 'success',
      output: {
        city: 'New York',
        date: 'next Friday',
        forecast: 'Partly cloudy, 14°C',
        conditions: 'Partly cloudy',
        temperatureC: 14,
      },
    });
    const again = await call('get_weather', 'call-w2', { city: 'new york', date: 'Next Friday' });
    expect(again).toMatchObject({ status: 'success', output: { forecast: 'Partly cloudy, 14°C' } });
  });

  it('rejects a call without a city before running', async () => {
    expect(await call('get_weather', 'call-w3', { date: 'today' })).toMatchObject({
      status: 'invalid',
      error: { code: 'INVALID_ARGUMENTS' },
    });
  });
});

describe('send_email (agent-tool with approval, external)', () => {
  const body = `Hi team, flights and weather for the NYC trip follow. ${'Details. '.repeat(40)}`;
  const fields = { recipient: 'team@example.com', subject: 'NYC Trip', body };

  async function waitForApproval(callId: string): Promise<Extract<AgentStepOutput, { state: 'waiting_for_approval' }>> {
    return expectState(stepOutput(await call('send_email', callId, fields)), 'waiting_for_approval');
  }

  it('asks for approval with a structured request, and writes nothing yet', async () => {
    const out = await waitForApproval('call-e1:0');
    expect(out.approval).toEqual({
      agentName: 'send_email',
      actionSummary: 'Send email to team@example.com',
      details: { recipient: 'team@example.com', subject: 'NYC Trip', bodyPreview: body.slice(0, 200) },
      options: ['approve', 'edit', 'cancel'],
      timeoutMinutes: 30,
      allowModification: true,
    });
    expect(out.prompt).toContain('Please confirm: Send email to team@example.com');
    expect(await outboxFiles()).toEqual([]);
  });

  it('asks for a recipient that is not an address', async () => {
    const out = expectState(
      stepOutput(await call('send_email', 'call-e2:0', { ...fields, recipient: 'the team' })),
      'waiting_for_input',
    );
    expect(out.missing).toEqual([
      { name: 'recipient', description: 'Who receives the email (email address)', reason: RECIPIENT_REASON },
    ]);
  });

  it('writes exactly one email on approval, and replays a repeated approval step', async () => {
    const pending = await waitForApproval('call-e3:0');
    const approve: AgentStepInput = { phase: 'approval', collected: pending.collected, reply: 'yes' };
    const done = expectState(stepOutput(await call('send_email', 'call-e3:1', {}, approve)), 'completed');
    expect(done.result).toMatch(/^Email sent to team@example\.com \(message id [0-9a-f]{32}@travel-runner\.example\)$/);
    const files = await outboxFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({
      to: 'team@example.com',
      subject: 'NYC Trip',
      body,
      tenantId: 'acme',
      conversationId: 'trip-1',
      callId: 'call-e3:1',
      from: 'google/primary',
    });
    expect(JSON.stringify(files)).not.toContain(MAIL_TOKEN);
    expect(done.result).toContain(files[0]!.messageId);

    // The pool sends the same step again (a lost answer, a resumed turn): the stored answer, no second email.
    const repeat = await rawStep('send_email', 'call-e3:1', approve);
    expect(repeat.replayed).toBe(true);
    expect(stepOutput(repeat.response)).toEqual(done);
    expect(await outboxFiles()).toHaveLength(1);
  });

  it('sends the edited email when the user changes a field', async () => {
    const pending = await waitForApproval('call-e4:0');
    const edit: AgentStepInput = {
      phase: 'approval',
      collected: pending.collected,
      decision: 'edit',
      changes: { subject: 'New' },
    };
    const done = expectState(stepOutput(await call('send_email', 'call-e4:1', {}, edit)), 'completed');
    expect(done.collected).toMatchObject({ subject: 'New' });
    const files = await outboxFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ to: 'team@example.com', subject: 'New', body });
  });

  it('writes nothing when the user cancels', async () => {
    const pending = await waitForApproval('call-e5:0');
    const cancel: AgentStepInput = { phase: 'approval', collected: pending.collected, decision: 'cancel' };
    const out = expectState(stepOutput(await call('send_email', 'call-e5:1', {}, cancel)), 'cancelled');
    expect(out.message).toBe('User cancelled this action.');
    expect(await outboxFiles()).toEqual([]);
  });

  it('says clearly, and sends nothing, when the user has no mail account connected', async () => {
    const pending = expectState(
      stepOutput(await call('send_email', 'call-e6:0', fields, undefined, 'globex')),
      'waiting_for_approval',
    );
    const approve: AgentStepInput = { phase: 'approval', collected: pending.collected, reply: 'yes' };
    const done = expectState(stepOutput(await call('send_email', 'call-e6:1', {}, approve, 'globex')), 'completed');
    expect(done.result).toBe(
      'The email to team@example.com was not sent: no google account is connected. Connect your google account to let me do this.',
    );
    expect(await outboxFiles()).toEqual([]);
  });
});
