import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '@platform/service-kit';
import {
  generateCredentialKeys,
  PLATFORM_APPS,
  startPlatform,
  workspaceRoot,
  type Platform,
  type PlatformApp,
} from '@platform/testing';
import { SignJWT } from 'jose';
import { LocalStackConfig } from './config.js';
import { runDemoConversation } from './demo.js';
import { provideInfrastructure, type Infrastructure } from './infrastructure.js';

const write = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

async function waitUntilReady(apiUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${apiUrl}/readyz`);
      if (response.ok) return;
      last = await response.text();
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the api did not become ready within ${timeoutMs} ms: ${last}`);
}

async function main(): Promise<void> {
  const config = loadConfig(LocalStackConfig);
  const logDir = path.resolve(workspaceRoot(), config.LOG_DIR);
  mkdirSync(logDir, { recursive: true });
  const logs = new Map<PlatformApp, NodeJS.WritableStream>();
  const logTo = (app: PlatformApp, line: string): void => {
    if (!logs.has(app)) logs.set(app, createWriteStream(path.join(logDir, `${app}.log`), { flags: 'a' }));
    logs.get(app)!.write(`${line}\n`);
  };

  let infra: Infrastructure | undefined;
  let platform: Platform | undefined;
  const stop = async (): Promise<void> => {
    write('\nStopping the platform...');
    await platform?.stop();
    await infra?.stop();
    write('Stopped.');
  };

  try {
    infra = await provideInfrastructure(config);
    write(
      infra.private
        ? `Started private NATS (${infra.natsUrl}), PostgreSQL and Redis for this session.`
        : 'Using the configured NATS, PostgreSQL and Redis.',
    );
    const model = config.OPENAI_BASE_URL
      ? { baseUrl: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY ?? '', model: config.LLM_MODEL }
      : undefined;
    platform = await startPlatform({
      natsUrl: infra.natsUrl,
      databaseUrl: infra.databaseUrl,
      redisUrl: infra.redisUrl,
      jwtSecret: config.AUTH_JWT_SECRET,
      model,
      ports: {
        api: config.API_PORT,
        memory: config.MEMORY_PORT,
        credential: config.CREDENTIAL_PORT,
        agentPool: config.AGENT_POOL_PORT,
        orchestrator: config.ORCHESTRATOR_PORT,
        trigger: config.TRIGGER_PORT,
        llmSim: config.LLM_SIM_PORT,
      },
      portVariables: {
        api: 'API_PORT',
        memory: 'MEMORY_PORT',
        credential: 'CREDENTIAL_PORT',
        agentPool: 'AGENT_POOL_PORT',
        orchestrator: 'ORCHESTRATOR_PORT',
        trigger: 'TRIGGER_PORT',
        llmSim: 'LLM_SIM_PORT',
      },
      credentialKeys: {
        ...generateCredentialKeys(),
        ...(config.CREDENTIAL_KEYRING ? { keyring: config.CREDENTIAL_KEYRING } : {}),
      },
      onLine: logTo,
    });
    await waitUntilReady(platform.apiUrl, 30_000);
    write(
      `Services are up (logs in ${path.relative(process.cwd(), logDir) || logDir}/): ${PLATFORM_APPS.filter((a) => platform?.process(a)).join(', ')}.`,
    );
    write(model ? `Model: ${model.model} at ${model.baseUrl}` : `Model: llm-sim (simulated, ${platform.llmSimUrl})`);

    const token = await new SignJWT({ tenant: config.DEMO_TENANT })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('local-developer')
      .setIssuedAt()
      .setExpirationTime('12h')
      .sign(new TextEncoder().encode(config.AUTH_JWT_SECRET));
    // The tenant's administrator: API keys, the audit, erasing memory (docs/access.md#roles).
    const adminToken = await new SignJWT({ tenant: config.DEMO_TENANT, roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('local-admin')
      .setIssuedAt()
      .setExpirationTime('12h')
      .sign(new TextEncoder().encode(config.AUTH_JWT_SECRET));

    if (config.DEMO) {
      write();
      await runDemoConversation(platform.apiUrl, token, config.DEMO_MESSAGE, write);
    }
    if (config.EXIT_AFTER_DEMO) {
      await stop();
      return;
    }
    write();
    write(`The platform keeps serving at ${platform.apiUrl} until you press Ctrl+C. Try it:`);
    write(`  export TOKEN=${token}`);
    write(
      `  curl -s -X POST ${platform.apiUrl}/v1/conversations/my-first/messages -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"content":"What is 2^10?"}'`,
    );
    write(`  curl -s ${platform.apiUrl}/v1/conversations/my-first/messages -H "authorization: Bearer $TOKEN"`);
    write(
      `  curl -s -X PUT ${platform.apiUrl}/v1/credentials/google/primary -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"secret":{"access_token":"..."}}'`,
    );
    write(`Or open the web console at ${platform.apiUrl}/console and sign in with that token (docs/console.md).`);
    write(`An admin of the tenant (API keys, the audit; docs/access.md):`);
    write(`  export ADMIN_TOKEN=${adminToken}`);
    write(
      `  curl -s -X POST ${platform.apiUrl}/v1/keys -H "authorization: Bearer $ADMIN_TOKEN" -H 'content-type: application/json' -d '{"name":"my-backend","role":"member"}'`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await stop();
  } catch (err) {
    write(`\nThe platform could not start: ${(err as Error).message}`);
    await stop().catch(() => undefined);
    process.exitCode = 1;
  }
}

await main();
