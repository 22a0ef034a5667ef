import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ManagedProcess,
  startNatsServer,
  startPlatform,
  workspaceRoot,
  type NatsServerHandle,
  type NatsServerOptions,
  type Platform,
  type PlatformOptions,
} from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { SignJWT } from 'jose';

export const JWT_SECRET = 'e2e-secret-e2e-secret-e2e-secret-e2e';

/** A suite's platform, with the suite's own NATS server and Redis database. */
export type SuitePlatform = Platform & {
  natsUrl: string;
  redisUrl: string;
  databaseUrl: string;
  nats: NatsServerHandle;
};

/**
 * Boots every service for one suite: its own NATS server (tool runners and discovery are global
 * on a NATS server, so suites running in parallel must not share one), and a fresh database and
 * Redis database on the run's shared PostgreSQL and Redis.
 */
export async function bootPlatform(
  label: string,
  overrides: Partial<PlatformOptions> = {},
  natsOptions: NatsServerOptions = {},
): Promise<SuitePlatform> {
  const lines: string[] = [];
  const nats = await startNatsServer(natsOptions);
  const redisUrl = await allocateSuiteRedis();
  try {
    const databaseUrl = await createSuiteDatabase(label);
    const platform = await startPlatform({
      natsUrl: nats.url,
      databaseUrl,
      redisUrl,
      jwtSecret: JWT_SECRET,
      onLine: (app, line) => {
        lines.push(`[${app}] ${line}`);
        // E2E_SERVICE_LOGS=1 shows every service's log lines while debugging a suite.
        if (process.env['E2E_SERVICE_LOGS'] === '1') process.stderr.write(`[${app}] ${line}\n`);
      },
      ...overrides,
    });
    await waitForCatalog(platform.apiUrl, ['calculator', 'current_time']);
    const stopServices = platform.stop.bind(platform);
    return Object.assign(platform, {
      natsUrl: nats.url,
      redisUrl,
      databaseUrl,
      nats,
      stop: async () => {
        await stopServices();
        await nats.stop();
      },
    });
  } catch (err) {
    await nats.stop();
    throw new Error(`platform failed to start: ${(err as Error).message}\n${lines.slice(-40).join('\n')}`);
  }
}

/**
 * Starts a tool runner from its TypeScript entry (relative to the workspace) against the suite's
 * NATS and Redis, untraced, and waits until it announces it is ready.
 */
export async function startRunnerProcess(
  platform: SuitePlatform,
  label: string,
  entry: string,
  env: Record<string, string> = {},
): Promise<ManagedProcess> {
  const runner = ManagedProcess.start(
    label,
    process.execPath,
    ['--conditions=@platform/source', '--import', 'tsx', entry],
    {
      cwd: workspaceRoot(),
      env: {
        ...process.env,
        NATS_URL: platform.natsUrl,
        REDIS_URL: platform.redisUrl,
        OTEL_SDK_DISABLED: 'true',
        ...env,
      },
    },
  );
  await runner.waitForOutput((out) => out.includes('"msg":"ready"'), 30_000);
  return runner;
}

/** Waits until the orchestrator's catalog lists the tools (discovery is periodic). */
export async function waitForCatalog(apiUrl: string, tools: string[]): Promise<void> {
  const auth = { authorization: `Bearer ${await tokenFor('readiness-check')}` };
  for (let attempt = 0; attempt < 150; attempt++) {
    const response = await fetch(`${apiUrl}/v1/tools`, { headers: auth }).catch(() => undefined);
    const listed = response?.ok
      ? ((await response.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
      : [];
    if (tools.every((t) => listed.includes(t))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the tool catalog never listed ${tools.join(', ')}`);
}

/** Who calls in a suite: a tenant's end user (role `member`, the default), or with roles and a subject of its own. */
export type Caller = string | { tenant: string; roles?: string[]; subject?: string; tier?: string };

export async function tokenFor(caller: Caller): Promise<string> {
  const { tenant, roles, subject, tier } = typeof caller === 'string' ? { tenant: caller } : caller;
  return new SignJWT({ tenant, ...(roles ? { roles } : {}), ...(tier ? { tier } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject ?? `user-of-${tenant}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

/**
 * An approval request as the api shows it (`GET /v1/approvals`, a waiting turn's `pending`),
 * written out here from the API docs, not taken from the code that produces it.
 */
export interface ApprovalJson {
  approvalId: string;
  agentName: string;
  actionSummary: string;
  details: Record<string, unknown>;
  options: string[];
  allowModification: boolean;
  conversationId: string;
  source: { kind: string };
  expiresAt: string;
}

/** A turn's answer (`POST /v1/conversations/{id}/messages`, `POST /v1/approvals/{id}`), as far as these suites read it. */
export interface TurnJson {
  runId: string;
  status: string;
  stopReason: string;
  response: string;
  toolCalls: Array<{ callId: string; name: string; status: string; durationMs: number; errorCode?: string }>;
  pending: Array<{ callId: string; agentName: string; waitingFor: string; prompt: string; approval?: ApprovalJson }>;
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** Calls the platform's HTTP API as a client would. */
export async function api<T = Record<string, unknown>>(
  platform: Platform,
  method: string,
  path: string,
  tenant: Caller,
  body?: unknown,
  signal?: AbortSignal,
): Promise<ApiResponse<T>> {
  const response = await fetch(`${platform.apiUrl}${path}`, {
    method,
    ...(signal ? { signal } : {}),
    headers: {
      authorization: `Bearer ${await tokenFor(tenant)}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Polls `probe` until it returns a value (every 50 ms), or fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A stored message of a conversation (`GET /v1/conversations/{id}/messages`), as these suites read it. */
export interface StoredMessageJson {
  seq: number;
  runId: string;
  message: {
    role: string;
    content: string | null;
    toolCalls?: Array<{ id: string; name: string; arguments: string }>;
    toolCallId?: string;
    status?: string;
  };
}

/** The whole stored history of a conversation, oldest first. */
export async function historyOf(
  platform: Platform,
  tenant: string,
  conversationId: string,
): Promise<StoredMessageJson[]> {
  const page = await api<{ messages: StoredMessageJson[] }>(
    platform,
    'GET',
    `/v1/conversations/${conversationId}/messages?limit=1000`,
    tenant,
  );
  return page.body.messages;
}

/**
 * Checks the history's closure (every tool call has exactly one result, and no result lacks its
 * call) and returns the stored result of the call `callId`, after its call.
 */
export function storedResultOf(
  history: readonly StoredMessageJson[],
  callId: string,
): StoredMessageJson['message'] | undefined {
  const calls = history.flatMap((m) => m.message.toolCalls?.map((c) => c.id) ?? []);
  const results = history.flatMap((m) => (m.message.toolCallId ? [m.message.toolCallId] : []));
  if ([...results].sort().join() !== [...calls].sort().join())
    throw new Error(`history breaks closure: calls ${calls.join()} / results ${results.join()}`);
  const callAt = history.findIndex((m) => m.message.toolCalls?.some((c) => c.id === callId));
  const resultAt = history.findIndex((m) => m.message.toolCallId === callId);
  return callAt >= 0 && resultAt > callAt ? history[resultAt]!.message : undefined;
}

/** The chat-completion requests llm-sim received, oldest first. */
export async function simRequests(platform: Platform): Promise<
  Array<{
    scenario: string | null;
    body: { messages: Array<{ role: string; content: unknown; tool_call_id?: string }> };
  }>
> {
  const response = await fetch(`${platform.llmSimUrl}/_sim/requests`);
  return (
    (await response.json()) as {
      requests: Array<{
        scenario: string | null;
        body: { messages: Array<{ role: string; content: unknown; tool_call_id?: string }> };
      }>;
    }
  ).requests;
}

/** Agent profiles in a temporary file, for the orchestrator's AGENT_PROFILES_FILE; `remove` deletes it. */
export async function writeProfilesFile(
  name: string,
  document: unknown,
): Promise<{ file: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-profiles-`));
  const file = join(dir, 'profiles.json');
  await writeFile(file, JSON.stringify(document));
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Orchestrator settings under which a killed orchestrator's runs resume within a second or two. */
export const FAST_RECOVERY = {
  RUN_LEASE_MS: '1500',
  RECOVERY_INTERVAL_MS: '500',
  RUN_POLL_MS: '200',
  RATE_LIMIT_TURNS_PER_MINUTE: '0',
  SHUTDOWN_GRACE_MS: '500',
} as const;
