// A taken port stops a service with a message that names the address and the variable that moves it,
// and the launcher (npm run platform) names its own variable, where grpc-js said only "No address added".
import { createServer, type Server } from 'node:net';
import {
  startNatsServer,
  startPlatform,
  type NatsServerHandle,
  type PlatformApp,
  type PlatformOptions,
} from '@platform/testing';
import { allocateSuiteRedis, createSuiteDatabase } from '@platform/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_SECRET } from './support.js';

type PortKey = keyof NonNullable<PlatformOptions['ports']>;

// Each app with a port: the launcher's variable (deploy/local) and the service's own.
const CASES: Array<[PlatformApp, PortKey, string, string]> = [
  ['memory', 'memory', 'MEMORY_PORT', 'GRPC_PORT'],
  ['credential', 'credential', 'CREDENTIAL_PORT', 'GRPC_PORT'],
  ['agent-pool', 'agentPool', 'AGENT_POOL_PORT', 'GRPC_PORT'],
  ['orchestrator', 'orchestrator', 'ORCHESTRATOR_PORT', 'GRPC_PORT'],
  ['trigger', 'trigger', 'TRIGGER_PORT', 'GRPC_PORT'],
  ['api', 'api', 'API_PORT', 'HTTP_PORT'],
  ['llm-sim', 'llmSim', 'LLM_SIM_PORT', 'LLM_SIM_PORT'],
];

let nats: NatsServerHandle;
let infra: Pick<PlatformOptions, 'natsUrl' | 'databaseUrl' | 'redisUrl' | 'jwtSecret'>;
let squatter: Server;
let taken: number;

beforeAll(async () => {
  nats = await startNatsServer();
  infra = {
    natsUrl: nats.url,
    databaseUrl: await createSuiteDatabase('port-taken'),
    redisUrl: await allocateSuiteRedis(),
    jwtSecret: JWT_SECRET,
  };
  // Another process holds a port on the address the services bind.
  squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  taken = (squatter.address() as { port: number }).port;
});
afterAll(async () => {
  squatter?.close();
  await nats?.stop();
});

async function startFailure(app: PlatformApp, port: PortKey, launcherVariable?: string): Promise<string> {
  const started = startPlatform({
    ...infra,
    mode: 'source',
    readyTimeoutMs: 90_000,
    apps: [app],
    ports: { [port]: taken },
    ...(launcherVariable ? { portVariables: { [port]: launcherVariable } } : {}),
  });
  const err = await started.then(
    async (platform) => {
      await platform.stop();
      return undefined;
    },
    (e: unknown) => e as Error,
  );
  expect(err, `${app} started on a taken port`).toBeInstanceOf(Error);
  return err!.message;
}

describe('a port that is taken', () => {
  it.each(CASES)(
    'stops %s with the address in use and the launcher variable that moves it',
    async (app, port, launcherVariable) => {
      const message = await startFailure(app, port, launcherVariable);
      expect(message).toBe(
        `${app} cannot listen on 127.0.0.1:${taken}: the address is already in use by another process (EADDRINUSE); set ${launcherVariable} to another port to move it`,
      );
    },
  );

  it.each([CASES[0]!, CASES[5]!])(
    "names %s's own variable when the launcher has none",
    async (app, port, _launcherVariable, serviceVariable) => {
      expect(await startFailure(app, port)).toBe(
        `${app} cannot listen on 127.0.0.1:${taken}: the address is already in use by another process (EADDRINUSE); set ${serviceVariable} to another port to move it`,
      );
    },
  );
});
