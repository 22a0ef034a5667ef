import { request as httpRequest } from 'node:http';
import { startNatsServer, startPlatform, type NatsServerHandle, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { SignJWT } from 'jose';
import type { ForeignData } from './hostile-values.js';
import type { HostileRequest } from './request-arbitrary.js';

const JWT_SECRET = 'security-secret-security-secret-0123';

/** The attacker and the victim. */
export const ATTACKER = 'tenant-attacker';
export const VICTIM = 'tenant-victim';

export type AttackedPlatform = Platform & { nats: NatsServerHandle };

/**
 * Boots every service as its own process (the launcher the e2e suites use) on the run's shared
 * Postgres and Redis and a private NATS server, with turn rate limits that a few hundred hostile
 * requests do not exhaust.
 */
export async function bootAttackedPlatform(): Promise<AttackedPlatform> {
  const nats = await startNatsServer();
  const lines: string[] = [];
  try {
    const platform = await startPlatform({
      natsUrl: nats.url,
      databaseUrl: await createSuiteDatabase('security'),
      redisUrl: await allocateSuiteRedis(),
      jwtSecret: JWT_SECRET,
      // SECURITY_SERVICE_MODE=source runs the services from TypeScript (checking a change without a build).
      mode: process.env['SECURITY_SERVICE_MODE'] === 'source' ? 'source' : 'dist',
      // A machine busy with other suites may take long to start eight processes.
      readyTimeoutMs: 120_000,
      env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
      onLine: (app, line) => {
        lines.push(`[${app}] ${line}`);
        if (process.env['SECURITY_SERVICE_LOGS'] === '1') process.stderr.write(`[${app}] ${line}\n`);
      },
    });
    const stopServices = platform.stop.bind(platform);
    return Object.assign(platform, { nats, stop: async () => (await stopServices(), await nats.stop()) });
  } catch (err) {
    await nats.stop();
    throw new Error(`platform failed to start: ${(err as Error).message}\n${lines.slice(-40).join('\n')}`);
  }
}

/**
 * A tenant's admin token: a hostile tenant holds every right within its own tenant (docs/access.md),
 * so the suites attack with the most a tenant can have.
 */
export async function tokenFor(tenant: string): Promise<string> {
  return new SignJWT({ tenant, roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(`user-of-${tenant}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The server sent the headers of an event stream; the suite stopped reading there. */
  streamed: boolean;
  /** No answer within the request's time limit. */
  timedOut: boolean;
}

/** Sends a request byte for byte (node:http: bodies on any method, raw paths, any header size), on a connection of its own. */
export function send(apiUrl: string, req: HostileRequest, token: string, timeoutMs = 20_000): Promise<RawAnswer> {
  const url = new URL(apiUrl);
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        agent: false,
        method: req.method,
        path: req.url,
        headers: {
          authorization: `Bearer ${token}`,
          ...req.headers,
          ...(req.body ? { 'content-length': String(req.body.length) } : {}),
        },
      },
      (res) => {
        const base = { status: res.statusCode ?? 0, headers: res.headers, timedOut: false };
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy();
          resolve({ ...base, text: '', streamed: true });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ ...base, text: Buffer.concat(chunks).toString('utf8'), streamed: false }));
        res.on('error', (err) => resolve({ ...base, text: `answer cut off (${err.message})`, streamed: false }));
      },
    );
    outgoing.setTimeout(timeoutMs, () => {
      outgoing.destroy();
      resolve({ status: 0, headers: {}, text: '', streamed: false, timedOut: true });
    });
    outgoing.on('error', (err) =>
      resolve({
        status: 0,
        headers: {},
        text: `connection closed without an answer (${err.message})`,
        streamed: false,
        timedOut: false,
      }),
    );
    if (req.body) outgoing.write(req.body);
    outgoing.end();
  });
}

/** JSON call as an ordinary client (seeding and read-backs). */
export async function call<T = Record<string, unknown>>(
  apiUrl: string,
  method: string,
  path: string,
  tenant: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await tokenFor(tenant)}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** What a tenant owns after seeding: ids by path parameter name, and the text only it wrote. */
export interface SeededTenant {
  ids: Record<string, string[]>;
  secrets: string[];
}

async function expectStatus<T>(
  what: string,
  answer: Promise<{ status: number; body: T }>,
  ...ok: number[]
): Promise<T> {
  const { status, body } = await answer;
  if (!ok.includes(status)) throw new Error(`seeding: ${what} answered ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Waits until the orchestrator's catalog lists the built-in tools (discovery is periodic). */
export async function waitForCatalog(apiUrl: string): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const listed = await call<{ tools?: Array<{ name: string }> }>(apiUrl, 'GET', '/v1/tools', 'readiness-check').catch(
      () => undefined,
    );
    if (listed?.body.tools?.some((t) => t.name === 'calculator')) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the tool catalog never listed calculator');
}

/** A JSON-RPC message to /v1/mcp as `tenant`, in the session `sessionId` names (none: an initialize). */
export async function mcpMessage(
  apiUrl: string,
  tenant: string,
  message: Record<string, unknown>,
  sessionId?: string,
): Promise<{ status: number; sessionId: string | undefined; text: string }> {
  const response = await fetch(`${apiUrl}/v1/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await tokenFor(tenant)}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return {
    status: response.status,
    sessionId: response.headers.get('mcp-session-id') ?? undefined,
    text: await response.text(),
  };
}

/** Opens an MCP session for `tenant` (initialize, then its `initialized` notification): its id. */
async function openMcpSession(apiUrl: string, tenant: string): Promise<string> {
  const init = await mcpMessage(apiUrl, tenant, {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'security', version: '1.0.0' } },
  });
  if (init.status !== 200 || !init.sessionId)
    throw new Error(`seeding: MCP initialize answered ${init.status} ${init.text}`);
  const initialized = await mcpMessage(apiUrl, tenant, { method: 'notifications/initialized' }, init.sessionId);
  if (initialized.status !== 202) throw new Error(`seeding: MCP initialized answered ${initialized.status}`);
  return init.sessionId;
}

/** Gives `tenant` a conversation with a run, a tried tool call, a task, a credential and an MCP session, each marked with text only it wrote. */
export async function seedTenant(apiUrl: string, tenant: string): Promise<SeededTenant> {
  const marker = `secret-of-${tenant}-${Math.random().toString(36).slice(2, 10)}`;
  const conversationId = `conv-${tenant}`;
  const turn = await expectStatus<{ runId: string }>(
    'a turn',
    call(apiUrl, 'POST', `/v1/conversations/${conversationId}/messages`, tenant, {
      content: `[scenario:calculator] ${marker} what is 6 * 7?`,
    }),
    200,
  );
  const tried = await expectStatus<{ callId: string }>(
    'a tried call',
    call(apiUrl, 'POST', '/v1/tools/calculator/calls', tenant, { arguments: { expression: '6 * 7' } }),
    200,
  );
  const task = await expectStatus<{ taskId: string }>(
    'a task',
    call(apiUrl, 'POST', '/v1/tasks', tenant, {
      name: `task ${marker}`,
      trigger: { type: 'schedule', cron: '0 8 * * *' },
      action: { instruction: `instruction ${marker}` },
    }),
    201,
  );
  const account = `acct-${tenant}`;
  await expectStatus(
    'a credential',
    call(apiUrl, 'PUT', `/v1/credentials/gmail/${account}`, tenant, { secret: { access_token: marker } }),
    200,
  );
  const mcpSessionId = await openMcpSession(apiUrl, tenant);
  return {
    ids: {
      mcpSessionId: [mcpSessionId],
      conversationId: [conversationId],
      runId: [turn.runId],
      callId: [tried.callId],
      taskId: [task.taskId],
      account: [account],
      service: ['gmail'],
      name: ['calculator'],
      subject: [tenant],
    },
    secrets: [marker],
  };
}

/** The victim's data as the attacker's requests must never see it (and the ids they may name). */
export function foreignDataOf(victim: SeededTenant): ForeignData {
  return {
    ids: Object.entries(victim.ids)
      .filter(([name]) => !['service', 'name'].includes(name))
      .flatMap(([, ids]) => ids),
    secrets: victim.secrets,
  };
}
