import { randomUUID } from 'node:crypto';
import { connectNats, createLogger, isPlatformError, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import { defineAgentTool, defineTool, serveRunner, ToolCatalog, ToolClient, type ToolRunner } from '@platform/tool-sdk';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CredentialGrants } from '../tool-gate/credential-grants.js';
import { RunnerStats } from '../runner-stats.js';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { ToolBreakers } from '../tool-breakers.js';
import { ToolCallRecords } from './tool-call-records.js';
import { ToolTrials } from './tool-trials.js';
import { ToolGate } from '../tool-gate/tool-gate.js';

const logger = createLogger({ service: 'test', level: 'silent' });
// Each suite run gets its own tool names: runners of other suites share the NATS server.
const prefix = `t${randomUUID().slice(0, 8)}_`;
const names = { double: `${prefix}double`, stuck: `${prefix}stuck`, gated: `${prefix}gated`, agent: `${prefix}agent` };
let nc: NatsConnection;
let runner: ToolRunner;
let pool: pg.Pool;
let catalog: ToolCatalog;
let trials: ToolTrials;
let breakers: ToolBreakers;
let doubled = 0;

beforeAll(async () => {
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'tool-trials-test', logger });
  runner = await serveRunner({
    nc,
    name: `${prefix}tools`,
    version: '1.0.0',
    logger,
    tools: [
      defineTool({
        name: names.double,
        description: 'Doubles a number.',
        input: z.object({ n: z.number() }),
        handler: async ({ n }) => ((doubled += 1), { value: n * 2 }),
      }),
      defineTool({
        name: names.stuck,
        description: 'Never answers in time.',
        input: z.object({}),
        timeoutMs: 200,
        handler: (_args, context) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(new Error('aborted'))),
          ),
      }),
      defineTool({
        name: names.gated,
        description: 'Sends mail.',
        input: z.object({ to: z.string() }),
        requiresApproval: true,
        sideEffect: 'external',
        handler: async () => 'sent',
      }),
    ],
    agents: [
      defineAgentTool({ name: names.agent, description: 'Talks with the user.', fields: {}, run: async () => 'done' }),
    ],
  });
  pool = await openJournalDatabase('tool_trials', logger);
  catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 200, staleAfterMs: 0 });
  await catalog.refresh();
  breakers = new ToolBreakers({ failureThreshold: 1, cooldownMs: 60_000, logger });
  const grants = await CredentialGrants.create(
    { signingKeyJson: undefined, maxTtlSeconds: 60, slackSeconds: 5 },
    logger,
  );
  // Profiles: the default lets its agents use every tool; 'math' only the doubler, and only for tier 'pro'.
  const profiles = {
    resolve: (name: string | undefined, caller?: { tenantId: string; tier: string }) => {
      if (!name || name === 'default') return { name: 'default', allowsTool: () => true };
      if (name === 'math' && caller?.tier === 'pro')
        return { name: 'math', allowsTool: (tool: string) => tool === names.double };
      return undefined;
    },
    namesFor: (caller: { tier: string }) => (caller.tier === 'pro' ? ['default', 'math'] : ['default']),
  } as unknown as ConstructorParameters<typeof ToolTrials>[0]['profiles'];
  trials = new ToolTrials({
    gate: new ToolGate({ catalog, client: new ToolClient({ nc, logger }), breakers, grants }),
    catalog,
    records: new ToolCallRecords(pool),
    profiles,
    defaultTier: 'free',
    logger,
  });
});
afterAll(async () => {
  await runner.stop(100);
  await nc.close();
  await pool.end();
});

const signal = new AbortController().signal;
const callId = (): string => `try_${randomUUID()}`;
const request = (
  tool: string,
  args: unknown,
  id = callId(),
  tenantId = 'acme',
  as: { tier?: string; profile?: string } = {},
) => ({
  tenantId,
  toolName: tool,
  argumentsJson: JSON.stringify(args),
  callId: id,
  subject: 'alice',
  tier: as.tier ?? '',
  caller: '',
  conversationId: '',
  timeoutMs: 0,
  dryRun: false,
  profile: as.profile ?? '',
});

async function refusal(
  work: Promise<unknown>,
): Promise<{ kind: string; code: string; message: string; details?: Record<string, unknown> | undefined }> {
  const error = await work.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isPlatformError(error)) throw new Error(`expected a platform error, got ${String(error)}`);
  return { kind: error.kind, code: error.code, message: error.message, details: error.details };
}

describe('ToolTrials', () => {
  it("runs a call on the tool's runner under the tenant and journals it, readable by that tenant only", async () => {
    const id = callId();
    const call = await trials.call(request(names.double, { n: 21 }, id), signal);
    expect(call).toMatchObject({
      tenantId: 'acme',
      callId: id,
      toolName: names.double,
      status: 'success',
      output: { value: 42 },
      arguments: { n: 21 },
      subject: 'alice',
      runner: `${prefix}tools`,
    });
    expect(call.finishedAt).toBeInstanceOf(Date);
    expect(await trials.get('acme', id)).toEqual(call);
    expect(await refusal(trials.get('globex', id))).toMatchObject({ kind: 'not_found', code: 'TOOL_CALL_NOT_FOUND' });
  });

  it('answers the same call id again from the journal without sending the call again', async () => {
    const id = callId();
    const first = await trials.call(request(names.double, { n: 1 }, id), signal);
    const before = doubled;
    expect(await trials.call(request(names.double, { n: 1 }, id), signal)).toEqual(first);
    expect(doubled).toBe(before);
  });

  it('refuses arguments the runner rejects with INVALID_ARGUMENTS naming the field, and journals the call as invalid', async () => {
    const id = callId();
    const error = await refusal(trials.call(request(names.double, { n: 'x' }, id), signal));
    expect(error).toMatchObject({
      kind: 'invalid_argument',
      code: 'INVALID_ARGUMENTS',
      message: expect.stringMatching(/^arguments\.n: /),
    });
    expect(error.details).toEqual({ issues: [{ field: 'arguments.n', message: expect.any(String) }] });
    expect(await trials.get('acme', id)).toMatchObject({ status: 'invalid', errorCode: 'INVALID_ARGUMENTS' });
    expect(await refusal(trials.call(request(names.double, [1]), signal))).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'arguments must be a JSON object',
    });
  });

  it('answers an unknown tool with TOOL_NOT_FOUND, and a malformed call id with INVALID_CALL_ID', async () => {
    expect(await refusal(trials.call(request(`${prefix}nope`, {}), signal))).toMatchObject({
      kind: 'not_found',
      code: 'TOOL_NOT_FOUND',
    });
    expect(await refusal(trials.call(request('not a tool name!', {}), signal))).toMatchObject({
      kind: 'not_found',
      code: 'TOOL_NOT_FOUND',
    });
    expect(await refusal(trials.call(request(names.double, {}, 'call-1'), signal))).toMatchObject({
      kind: 'invalid_argument',
      code: 'INVALID_CALL_ID',
    });
  });

  it('never runs a tool that needs approval: APPROVAL_REQUIRED, nothing sent or journaled', async () => {
    const id = callId();
    expect(await refusal(trials.call(request(names.gated, { to: 'team@example.com' }, id), signal))).toMatchObject({
      kind: 'failed_precondition',
      code: 'APPROVAL_REQUIRED',
    });
    expect(await refusal(trials.get('acme', id))).toMatchObject({ code: 'TOOL_CALL_NOT_FOUND' });
  });

  it("passes the caller's profile's tool allowlist, as a model's call under that profile would: nothing else is sent or journaled", async () => {
    expect(
      await trials.call(request(names.double, { n: 2 }, callId(), 'acme', { tier: 'pro', profile: 'math' }), signal),
    ).toMatchObject({ status: 'success', output: { value: 4 } });
    const id = callId();
    expect(
      await refusal(trials.call(request(names.stuck, {}, id, 'acme', { tier: 'pro', profile: 'math' }), signal)),
    ).toMatchObject({
      kind: 'permission_denied',
      code: 'TOOL_NOT_ALLOWED',
      message: `the agent profile 'math' does not let its agents use '${names.stuck}', so it cannot be tried under it`,
    });
    expect(await refusal(trials.get('acme', id))).toMatchObject({ code: 'TOOL_CALL_NOT_FOUND' });
    // A profile the caller's tier may not use looks like one that does not exist.
    expect(
      await refusal(trials.call(request(names.double, { n: 2 }, callId(), 'acme', { profile: 'math' }), signal)),
    ).toMatchObject({
      kind: 'not_found',
      code: 'PROFILE_NOT_FOUND',
      message: "no agent profile 'math' for you; yours: default",
    });
  });

  it('never runs an agent-tool outside a conversation: AGENT_TOOL', async () => {
    expect(await refusal(trials.call(request(names.agent, {}), signal))).toMatchObject({
      kind: 'failed_precondition',
      code: 'AGENT_TOOL',
    });
  });

  it("ends a call at the tool's own timeout, which opens its breaker like a model's call would", async () => {
    expect(await trials.call(request(names.stuck, {}), signal)).toMatchObject({
      status: 'timeout',
      errorCode: 'TIMEOUT',
    });
    expect(breakers.view(names.stuck)).toMatchObject({ state: 'open', consecutiveFailures: 1 });
    expect(await trials.call(request(names.stuck, {}), signal)).toMatchObject({
      status: 'failed',
      errorCode: 'TOOL_CIRCUIT_OPEN',
    });
  });
});

describe('a tried call whose orchestrator died mid-call', () => {
  it("is reported failed INTERRUPTED once it has run past its tool's timeout and a grace, and not before", async () => {
    const records = new ToolCallRecords(pool);
    const fresh = callId();
    await records.start({
      tenantId: 'acme',
      callId: fresh,
      toolName: names.double,
      arguments: { n: 1 },
      subject: 'alice',
      runner: `${prefix}tools`,
    });
    expect(await trials.get('acme', fresh)).toMatchObject({ status: 'running', finishedAt: null });

    const stale = callId();
    await records.start({
      tenantId: 'acme',
      callId: stale,
      toolName: names.double,
      arguments: { n: 1 },
      subject: 'alice',
      runner: `${prefix}tools`,
    });
    // As if its orchestrator had been killed ten minutes ago, mid-call.
    await pool.query("UPDATE tool_calls SET started_at = now() - interval '10 minutes' WHERE call_id = $1", [stale]);
    const interrupted = await trials.get('acme', stale);
    expect(interrupted).toMatchObject({
      status: 'failed',
      errorCode: 'INTERRUPTED',
      errorMessage: expect.stringContaining('stopped before the tool answered'),
    });
    expect(interrupted.finishedAt).toBeInstanceOf(Date);
    expect(interrupted.durationMs).toBeGreaterThanOrEqual(599_000);
    expect(await trials.get('acme', stale)).toEqual(interrupted);
    expect(await refusal(trials.get('globex', stale))).toMatchObject({ code: 'TOOL_CALL_NOT_FOUND' });
  });
});

describe('RunnerStats', () => {
  it("shows each tool's replicas with their $SRV.STATS for its endpoint", async () => {
    const stats = new RunnerStats(nc, { waitMs: 2_000, logger });
    const tools = catalog.list().filter((t) => t.name.startsWith(prefix));
    const instances = await stats.instancesOf(tools);
    const double = instances.get(names.double);
    expect(double).toHaveLength(1);
    expect(double![0]).toMatchObject({
      instanceId: tools[0]!.instances[0],
      version: '1.0.0',
      statsAvailable: true,
      requests: expect.any(Number),
    });
    expect(double![0]!.requests).toBeGreaterThanOrEqual(3);
    expect(double![0]!.started).toBeInstanceOf(Date);
  });
});
