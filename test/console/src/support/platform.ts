// The running platform the browser tests drive: every service its own process (as test/e2e
// starts them), the console served by the api, and the example travel runner for approvals.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ManagedProcess, startNatsServer, startPlatform, workspaceRoot, type Platform } from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { SignJWT } from 'jose';

const JWT_SECRET = 'console-browser-secret-console-browser-secret';
/** Where the console links a run's trace (a Jaeger URL in production; nothing answers it here). */
export const TRACE_URL_TEMPLATE = 'http://jaeger.invalid/trace/{traceId}';

export interface ConsolePlatform {
  platform: Platform;
  consoleUrl: string;
  /** A bearer token of `tenant` (with `roles`), as an identity provider would issue it. */
  tokenFor(tenant: string, roles?: string[]): Promise<string>;
  /** A well-formed token the api refuses: signed with another key. */
  forgedTokenFor(tenant: string): Promise<string>;
  /** Calls the API as `tenant` would (the tests' setup: what an application does outside the console). */
  api<T>(method: string, path: string, tenant: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

async function waitForTools(apiUrl: string, token: string, names: string[]): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const response = await fetch(`${apiUrl}/v1/tools`, { headers: { authorization: `Bearer ${token}` } }).catch(
      () => undefined,
    );
    const listed = response?.ok
      ? ((await response.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
      : [];
    if (names.every((n) => listed.includes(n))) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the tool catalog never listed ${names.join(', ')}`);
}

/**
 * Boots NATS, every service and the travel runner on the run's shared PostgreSQL and Redis;
 * `orchestratorEnv` adds to the orchestrator's settings (a suite's run webhook receiver, say).
 */
export async function bootConsolePlatform(orchestratorEnv: Record<string, string> = {}): Promise<ConsolePlatform> {
  const lines: string[] = [];
  const nats = await startNatsServer();
  const redisUrl = await allocateSuiteRedis();
  const outbox = await mkdtemp(path.join(os.tmpdir(), 'console-outbox-'));
  let platform: Platform | undefined;
  let runner: ManagedProcess | undefined;
  const stop = async (): Promise<void> => {
    await runner?.stop();
    await platform?.stop();
    await nats.stop();
    await rm(outbox, { recursive: true, force: true });
  };
  const signed = (secret: string, tenant: string, roles: string[] = []): Promise<string> =>
    new SignJWT(roles.length ? { tenant, roles } : { tenant })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(`user-of-${tenant}`)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret));
  const tokenFor = (tenant: string, roles: string[] = []): Promise<string> => signed(JWT_SECRET, tenant, roles);
  try {
    platform = await startPlatform({
      natsUrl: nats.url,
      databaseUrl: await createSuiteDatabase('console'),
      redisUrl,
      jwtSecret: JWT_SECRET,
      env: {
        api: { CONSOLE_TRACE_URL_TEMPLATE: TRACE_URL_TEMPLATE },
        orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0', ...orchestratorEnv },
        // The model connections page registers endpoints on loopback: the operator admits that one address.
        credential: { EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
      },
      onLine: (app, line) => {
        lines.push(`[${app}] ${line}`);
        if (process.env['E2E_SERVICE_LOGS'] === '1') process.stderr.write(`[${app}] ${line}\n`);
      },
    });
    runner = ManagedProcess.start(
      'travel-runner',
      process.execPath,
      ['--conditions=@platform/source', '--import', 'tsx', 'examples/travel-runner/src/main.ts'],
      {
        cwd: workspaceRoot(),
        env: {
          ...process.env,
          NATS_URL: nats.url,
          REDIS_URL: redisUrl,
          OTEL_SDK_DISABLED: 'true',
          OUTBOX_DIR: outbox,
          LOG_LEVEL: 'warn',
          CREDENTIAL_ADDRESS: `127.0.0.1:${platform.ports.credential}`,
          ...(await platform.pki.env('runner/travel')),
        },
      },
    );
    await runner.waitForOutput((out) => out.includes('"msg":"ready"'), 30_000);
    await waitForTools(platform.apiUrl, await tokenFor('readiness-check'), [
      'calculator',
      'current_time',
      'send_email',
    ]);
  } catch (err) {
    await stop();
    throw new Error(`the platform failed to start: ${(err as Error).message}\n${lines.slice(-40).join('\n')}`);
  }
  const apiUrl = platform.apiUrl;
  return {
    platform,
    consoleUrl: `${apiUrl}/console`,
    tokenFor,
    forgedTokenFor: (tenant) => signed(`not-the-${JWT_SECRET}`, tenant),
    async api<T>(method: string, urlPath: string, tenant: string, body?: unknown) {
      const response = await fetch(`${apiUrl}${urlPath}`, {
        method,
        headers: {
          authorization: `Bearer ${await tokenFor(tenant)}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (response.status === 204 ? undefined : await response.json()) as T };
    },
    stop,
  };
}
