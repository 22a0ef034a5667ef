import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { sharedInfra } from '@platform/testing/vitest';
import {
  CredentialVersionConflict,
  defineTool,
  serveRunner,
  ToolCatalog,
  ToolClient,
  type ToolRunner,
} from '@platform/tool-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  platformMetadata,
  startCredentialFixture,
  testRunnerTransport,
  type CredentialFixture,
} from './test-support/credential-fixture.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let fx: CredentialFixture;
let nc: NatsConnection;
let runner: ToolRunner;
let catalog: ToolCatalog;
let client: ToolClient;
const prefix = `cred${Math.random().toString(36).slice(2, 8)}`;

const readToken = defineTool({
  name: `${prefix}_read`,
  description: 'Reads the google token.',
  input: z.object({ account: z.string().optional() }),
  credentials: ['google'],
  handler: async ({ account }, ctx) => {
    const found = await ctx.credentials.get('google', account);
    return found.connected
      ? { connected: true, length: String(found.secret.access_token).length, version: found.version }
      : { connected: false, message: found.message };
  },
});
const refreshToken = defineTool({
  name: `${prefix}_refresh`,
  description: 'Refreshes the google token.',
  input: z.object({ expectedVersion: z.number() }),
  credentials: ['google'],
  handler: async ({ expectedVersion }, ctx) => {
    try {
      return await ctx.credentials.save('google', { access_token: 'refreshed-SECRET' }, { expectedVersion });
    } catch (err) {
      if (err instanceof CredentialVersionConflict) return { conflict: err.currentVersion };
      throw err;
    }
  },
});
const sneaky = defineTool({
  name: `${prefix}_sneaky`,
  description: 'Tries a service it did not declare.',
  input: z.object({}),
  credentials: ['google'],
  handler: async (_input, ctx) =>
    ctx.credentials.get('github').then(
      () => 'read github',
      (err: Error & { code?: string }) => err.code,
    ),
});

beforeAll(async () => {
  fx = await startCredentialFixture('credential_tool_access');
  nc = await connectNats({ servers: sharedInfra().natsUrl, name: 'credential-tool-access', logger });
  runner = await serveRunner({
    nc,
    name: `${prefix}-runner`,
    version: '1.0.0',
    tools: [readToken, refreshToken, sneaky],
    logger,
    credentials: { address: `127.0.0.1:${fx.server.port}`, transport: await testRunnerTransport() },
  });
  catalog = new ToolCatalog({ nc, logger, discoveryWaitMs: 200, staleAfterMs: 0 });
  await catalog.refresh();
  client = new ToolClient({ nc, logger });
});
afterAll(async () => {
  await runner.stop(100);
  await nc.close();
  await fx.stop();
});

/** Calls a tool as the orchestrator does: a grant for exactly this call and the tool's declared services. */
async function call(
  tool: string,
  args: Record<string, unknown>,
  options: { tenantId?: string; callId?: string; grant?: string | null } = {},
) {
  const callId = options.callId ?? `call-${Math.random().toString(36).slice(2)}`;
  const tenantId = options.tenantId ?? 'acme';
  const found = catalog.lookup(tool);
  expect(found.state).toBe('online');
  const services = found.state === 'online' ? (found.entry.credentials ?? []) : [];
  const grant =
    options.grant === null ? undefined : (options.grant ?? (await fx.grant({ tenantId, callId, tool, services })));
  return client.call({
    toolName: tool,
    arguments: args,
    callId,
    tenantId,
    conversationId: 'c1',
    runId: 'run-1',
    deadlineAt: Date.now() + 5_000,
    ...(grant ? { credentialGrant: grant } : {}),
  });
}

describe('tools reading credentials through grants', () => {
  it('publishes the declared services in the descriptor', () => {
    const found = catalog.lookup(readToken.name);
    expect(found.state === 'online' && found.entry.credentials).toEqual(['google']);
  });

  it('gives a typed "not connected" result when the tenant has not connected the account', async () => {
    expect(await call(readToken.name, {})).toMatchObject({
      status: 'success',
      output: { connected: false, message: 'Connect your google account to let me do this.' },
    });
  });

  it('reads a connected account, and saves a refresh with optimistic concurrency', async () => {
    await fx.client.rpc.saveCredential(
      {
        tenantId: 'acme',
        service: 'google',
        account: '',
        secretJson: JSON.stringify({ access_token: 'ya29.SECRET' }),
        expectedVersion: undefined,
        grant: '',
        callId: '',
        actor: undefined,
      },
      { metadata: platformMetadata() },
    );
    expect(await call(readToken.name, {})).toMatchObject({
      status: 'success',
      output: { connected: true, length: 11, version: 1 },
    });
    const [a, b] = await Promise.all([
      call(refreshToken.name, { expectedVersion: 1 }),
      call(refreshToken.name, { expectedVersion: 1 }),
    ]);
    const outputs = [a, b].map((r) => (r.status === 'success' ? r.output : r));
    expect(outputs).toEqual(expect.arrayContaining([{ version: 2 }, { conflict: 2 }]));
  });

  it('keeps a tenant to its own credentials: another tenant reads "not connected"', async () => {
    expect(await call(readToken.name, {}, { tenantId: 'globex' })).toMatchObject({
      status: 'success',
      output: { connected: false },
    });
  });

  it('refuses a service the tool did not declare, before asking the service', async () => {
    expect(await call(sneaky.name, {})).toMatchObject({ status: 'success', output: 'SERVICE_NOT_DECLARED' });
  });

  it('fails the call when it came without a grant, or with a grant of another call', async () => {
    const noGrant = await call(readToken.name, {}, { grant: null });
    expect(noGrant).toMatchObject({ status: 'failed', error: { code: 'HANDLER_FAILED' } });
    const otherCall = await call(
      readToken.name,
      {},
      { grant: await fx.grant({ callId: 'some-other-call', tool: readToken.name }) },
    );
    expect(otherCall).toMatchObject({ status: 'failed', error: { code: 'HANDLER_FAILED' } });
    const { events } = await fx.client.rpc.listAuditEvents(
      { tenantId: 'acme', beforeId: 0, limit: 1 },
      { metadata: platformMetadata() },
    );
    expect(events[0]).toMatchObject({ action: 'get', outcome: 'denied', callId: 'some-other-call' });
  });
});
