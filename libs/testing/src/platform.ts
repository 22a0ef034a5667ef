import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { freePort, freePorts } from './ports.js';
import { startServiceProcess, type ServiceMode, type ServiceProcess } from './service-process.js';
import { sharedServicePki, type ServicePki } from './service-pki.js';
import { describeListenFailure, listenFailureIn } from './start-failure.js';

/** The apps a full platform runs, in start order (each only needs the ones before it). */
export const PLATFORM_APPS = [
  'llm-sim',
  'memory',
  'credential',
  'tool-runner',
  'agent-pool',
  'orchestrator',
  'trigger',
  'api',
] as const;
export type PlatformApp = (typeof PLATFORM_APPS)[number];
type PlatformPort = 'api' | 'memory' | 'credential' | 'agentPool' | 'orchestrator' | 'trigger' | 'llmSim';

/** The secrets that tie the credential service to its callers (docs/credentials.md). */
export interface CredentialKeys {
  /** The credential service's keyring JSON (CREDENTIAL_KEYRING). */
  keyring: string;
  /** The orchestrator's private JWK that signs grants (CREDENTIAL_GRANT_SIGNING_KEY). */
  grantSigningKey: string;
  /** Its public half as a JWKS, for the credential service (CREDENTIAL_GRANT_PUBLIC_KEYS). */
  grantPublicKeys: string;
  /** The api's token for the credential service (CREDENTIAL_PLATFORM_TOKEN / _TOKENS). */
  platformToken: string;
}

/** Fresh random credential keys: a one-key keyring, an Ed25519 grant key pair, a platform token. */
export function generateCredentialKeys(): CredentialKeys {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = `grant-${randomBytes(4).toString('hex')}`;
  return {
    keyring: JSON.stringify({ active: 'k1', keys: { k1: randomBytes(32).toString('base64') } }),
    grantSigningKey: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid, alg: 'EdDSA' }),
    grantPublicKeys: JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA' }] }),
    platformToken: randomBytes(32).toString('hex'),
  };
}

export interface PlatformOptions {
  natsUrl: string;
  databaseUrl: string;
  redisUrl: string;
  /** Secret for HS256 client tokens. */
  jwtSecret: string;
  /** A real OpenAI-compatible endpoint; when absent, llm-sim runs and answers. */
  model?: { baseUrl: string; apiKey: string; model: string };
  /** Fixed ports (e.g. for a local stack with stable URLs); free ports are chosen otherwise. */
  ports?: Partial<Record<PlatformPort, number>>;
  /** The launcher's variable for each fixed port (e.g. `{ memory: 'MEMORY_PORT' }`), named when that port is taken. */
  portVariables?: Partial<Record<PlatformPort, string>>;
  mode?: ServiceMode;
  /** Extra environment for every app, e.g. `{ OTEL_EXPORTER_OTLP_ENDPOINT: ... }`. */
  commonEnv?: Record<string, string>;
  /** Extra environment per app, e.g. `{ orchestrator: { MAX_TURNS: '3' } }`. */
  env?: Partial<Record<PlatformApp, Record<string, string>>>;
  /** Keys of the credential service and its callers; fresh random ones when absent. */
  credentialKeys?: CredentialKeys;
  /** The CA that issues each service's gRPC certificate (default: the test process's shared one). */
  pki?: ServicePki;
  /** Which apps to start (default all, minus llm-sim when a model is given). */
  apps?: PlatformApp[];
  /**
   * Orchestrator replicas (default 1). With more, each listens on its own port and the api
   * spreads calls over all of them (`ipv4:` target, round robin), as in a scaled deployment.
   */
  orchestratorReplicas?: number;
  /** api replicas (default 1): each on its own HTTP port (`apiUrls`), sharing NATS, Redis and the services. */
  apiReplicas?: number;
  /**
   * Extra environment of one api replica, given its index and HTTP port (after `env.api`), e.g. a
   * replica that trusts another identity provider's keys for a URL of its own.
   */
  apiReplicaEnv?: (replica: number, port: number) => Record<string, string>;
  /** How long each app may take to log `ready` (default 30 s; a loaded machine may need more). */
  readyTimeoutMs?: number;
  onLine?: (app: PlatformApp, line: string) => void;
}

/** A running platform: every service its own OS process, reachable on loopback. */
export interface Platform {
  readonly apiUrl: string;
  /** Every api replica's base URL (the first is `apiUrl`). */
  readonly apiUrls: readonly string[];
  readonly llmSimUrl: string | undefined;
  readonly ports: Record<PlatformPort, number>;
  readonly credentialKeys: CredentialKeys;
  /** The CA of the services' gRPC certificates: `pki.env('runner/travel')` for a runner's process. */
  readonly pki: ServicePki;
  /** The port of each orchestrator replica (the first is `ports.orchestrator`). */
  readonly orchestratorPorts: readonly number[];
  /** A running app; `replica` picks an orchestrator or api replica (default the first). */
  process(app: PlatformApp, replica?: number): ServiceProcess | undefined;
  /** Starts an app (again) with the same configuration and ports. */
  start(app: PlatformApp, replica?: number): Promise<ServiceProcess>;
  stopApp(app: PlatformApp, graceMs?: number, replica?: number): Promise<void>;
  kill(app: PlatformApp, replica?: number): Promise<void>;
  stop(): Promise<void>;
}

async function choosePorts(fixed: PlatformOptions['ports'] = {}): Promise<Platform['ports']> {
  const [api, memory, agentPool, orchestrator, llmSim, credential, trigger] = await freePorts(7);
  return {
    api: fixed.api ?? api!,
    memory: fixed.memory ?? memory!,
    credential: fixed.credential ?? credential!,
    agentPool: fixed.agentPool ?? agentPool!,
    orchestrator: fixed.orchestrator ?? orchestrator!,
    trigger: fixed.trigger ?? trigger!,
    llmSim: fixed.llmSim ?? llmSim!,
  };
}

/** The apps that serve or call gRPC, each with its own certificate (identity = app name). */
const GRPC_APPS = ['memory', 'credential', 'agent-pool', 'orchestrator', 'trigger', 'api'] as const;

/** The port each app listens on (tool-runner listens on none). */
const PORT_OF: Partial<Record<PlatformApp, PlatformPort>> = {
  'llm-sim': 'llmSim',
  memory: 'memory',
  credential: 'credential',
  'agent-pool': 'agentPool',
  orchestrator: 'orchestrator',
  trigger: 'trigger',
  api: 'api',
};

/** A start that failed because the app could not listen says where and how to move it; others pass unchanged. */
function explainStartFailure(app: PlatformApp, err: unknown, launcherVariable: string | undefined): unknown {
  const failure = err instanceof Error ? listenFailureIn(err.message) : undefined;
  return failure ? new Error(describeListenFailure(app, failure, launcherVariable), { cause: err }) : err;
}

/** Starts the platform's services as separate processes against the given NATS, Postgres and Redis. */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const ports = await choosePorts(options.ports);
  const replicas = options.orchestratorReplicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1)
    throw new Error(`orchestratorReplicas must be a positive integer (got ${replicas})`);
  const orchestratorPorts = [ports.orchestrator, ...(await freePorts(replicas - 1))];
  const apiReplicas = options.apiReplicas ?? 1;
  if (!Number.isInteger(apiReplicas) || apiReplicas < 1)
    throw new Error(`apiReplicas must be a positive integer (got ${apiReplicas})`);
  const apiPorts = [ports.api, ...(await freePorts(apiReplicas - 1))];
  const replicasOf = (app: PlatformApp): number =>
    app === 'orchestrator' ? replicas : app === 'api' ? apiReplicas : 1;
  const orchestratorAddress = (): string =>
    replicas === 1
      ? `127.0.0.1:${ports.orchestrator}`
      : `ipv4:${orchestratorPorts.map((port) => `127.0.0.1:${port}`).join(',')}`;
  const simulated = !options.model;
  const credentialKeys = options.credentialKeys ?? generateCredentialKeys();
  const credentialAddress = (): string => `127.0.0.1:${ports.credential}`;
  const common = {
    NATS_URL: options.natsUrl,
    LOG_LEVEL: process.env['PLATFORM_LOG_LEVEL'] ?? 'info',
    ...options.commonEnv,
  };
  // Every app that serves or calls gRPC runs as itself: mutual TLS with a certificate of its own.
  const pki = options.pki ?? (await sharedServicePki());
  const tls = Object.fromEntries(
    await Promise.all(GRPC_APPS.map(async (app) => [app, await pki.env(app)] as const)),
  ) as Record<(typeof GRPC_APPS)[number], Record<string, string>>;
  // Built when an app starts, so an app started after a port was chosen again sees the new one.
  const envFor = (app: PlatformApp): Record<string, string> => {
    const model = options.model ?? {
      baseUrl: `http://127.0.0.1:${ports.llmSim}/v1`,
      apiKey: 'sim-key',
      model: 'sim-1',
    };
    const envs: Record<PlatformApp, Record<string, string>> = {
      'llm-sim': { ...common, LLM_SIM_PORT: String(ports.llmSim), LLM_SIM_API_KEY: model.apiKey },
      memory: {
        ...common,
        ...tls.memory,
        DATABASE_URL: options.databaseUrl,
        GRPC_PORT: String(ports.memory),
        // Long-term memory extracts and answers with the same model as the orchestrator; with
        // llm-sim it also gets llm-sim's deterministic embeddings (vectors when pgvector is there).
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: model.apiKey,
        MEMORY_EXTRACTION_MODEL: model.model,
        ...(simulated ? { MEMORY_EMBEDDING_MODEL: 'sim-embed-1' } : {}),
      },
      credential: {
        ...common,
        ...tls.credential,
        DATABASE_URL: options.databaseUrl,
        GRPC_PORT: String(ports.credential),
        CREDENTIAL_KEYRING: credentialKeys.keyring,
        CREDENTIAL_GRANT_PUBLIC_KEYS: credentialKeys.grantPublicKeys,
        CREDENTIAL_PLATFORM_TOKENS: credentialKeys.platformToken,
      },
      'tool-runner': { ...common, REDIS_URL: options.redisUrl },
      'agent-pool': {
        ...common,
        ...tls['agent-pool'],
        DATABASE_URL: options.databaseUrl,
        GRPC_PORT: String(ports.agentPool),
        CATALOG_REFRESH_MS: '1000',
      },
      orchestrator: {
        ...common,
        ...tls.orchestrator,
        GRPC_PORT: String(ports.orchestrator),
        MEMORY_ADDRESS: `127.0.0.1:${ports.memory}`,
        AGENT_POOL_ADDRESS: `127.0.0.1:${ports.agentPool}`,
        DATABASE_URL: options.databaseUrl,
        REDIS_URL: options.redisUrl,
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: model.apiKey,
        LLM_MODEL: model.model,
        CATALOG_REFRESH_MS: '1000',
        CREDENTIAL_GRANT_SIGNING_KEY: credentialKeys.grantSigningKey,
        // Tenants' model connections (docs/models.md), when the platform runs the credential service:
        // without it the orchestrator has none, and agents cannot name a connection.
        ...(!options.apps || options.apps.includes('credential')
          ? { CREDENTIAL_ADDRESS: credentialAddress(), CREDENTIAL_PLATFORM_TOKEN: credentialKeys.platformToken }
          : {}),
      },
      trigger: {
        ...common,
        ...tls.trigger,
        DATABASE_URL: options.databaseUrl,
        GRPC_PORT: String(ports.trigger),
        ORCHESTRATOR_ADDRESS: orchestratorAddress(),
      },
      api: {
        ...common,
        ...tls.api,
        HTTP_PORT: String(ports.api),
        TRIGGER_ADDRESS: `127.0.0.1:${ports.trigger}`,
        ORCHESTRATOR_ADDRESS: orchestratorAddress(),
        MEMORY_ADDRESS: `127.0.0.1:${ports.memory}`,
        AGENT_POOL_ADDRESS: `127.0.0.1:${ports.agentPool}`,
        AUTH_JWT_SECRET: options.jwtSecret,
        REDIS_URL: options.redisUrl,
        CREDENTIAL_ADDRESS: credentialAddress(),
        CREDENTIAL_PLATFORM_TOKEN: credentialKeys.platformToken,
      },
    };
    return envs[app];
  };
  /** Running processes by app and replica (`orchestrator#1` is the second orchestrator). */
  const running = new Map<string, ServiceProcess>();
  const keyOf = (app: PlatformApp, replica = 0): string => {
    const count = replicasOf(app);
    if (!Number.isInteger(replica) || replica < 0 || replica >= count)
      throw new Error(`${app} has no replica ${replica} (it runs ${count})`);
    return replica === 0 ? app : `${app}#${replica}`;
  };
  const startedOnce = new Set<string>();
  const start = async (app: PlatformApp, replica = 0): Promise<ServiceProcess> => {
    const key = keyOf(app, replica);
    for (let attempt = 1; ; attempt++) {
      try {
        const replicaEnv =
          app === 'api'
            ? {
                ...(replica === 0 ? {} : { HTTP_PORT: String(apiPorts[replica]) }),
                ...options.apiReplicaEnv?.(replica, apiPorts[replica]!),
              }
            : replica === 0
              ? {}
              : { GRPC_PORT: String(orchestratorPorts[replica]) };
        const proc = await startServiceProcess({
          app,
          mode: options.mode ?? 'dist',
          ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
          env: { ...envFor(app), ...options.env?.[app], ...replicaEnv },
          onLine: options.onLine ? (line) => options.onLine?.(app, line) : undefined,
        });
        running.set(key, proc);
        startedOnce.add(key);
        return proc;
      } catch (err) {
        // A chosen port can be taken by another process before the app binds it (suites run in
        // parallel). On a first start nothing points at it yet: choose another and try again.
        const portKey = PORT_OF[app];
        const clash = /EADDRINUSE/.test(err instanceof Error ? err.message : String(err));
        if (!clash || !portKey || options.ports?.[portKey] !== undefined || startedOnce.has(key) || attempt >= 3)
          throw explainStartFailure(app, err, portKey && replica === 0 ? options.portVariables?.[portKey] : undefined);
        if (replica > 0 && app === 'api') apiPorts[replica] = await freePort();
        else if (replica > 0) orchestratorPorts[replica] = await freePort();
        else {
          ports[portKey] = await freePort();
          if (app === 'orchestrator') orchestratorPorts[0] = ports.orchestrator;
          if (app === 'api') apiPorts[0] = ports.api;
        }
      }
    }
  };
  const stopAll = async (): Promise<void> => {
    for (const app of [...PLATFORM_APPS].reverse()) {
      for (const [key, proc] of [...running]) {
        if (key !== app && !key.startsWith(`${app}#`)) continue;
        await proc.stop();
        running.delete(key);
      }
    }
  };

  const apps = options.apps ?? PLATFORM_APPS.filter((app) => simulated || app !== 'llm-sim');
  try {
    for (const app of PLATFORM_APPS) {
      if (!apps.includes(app)) continue;
      const count = replicasOf(app);
      for (let replica = 0; replica < count; replica++) await start(app, replica);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    apiUrl: `http://127.0.0.1:${ports.api}`,
    get apiUrls() {
      return apiPorts.map((port) => `http://127.0.0.1:${port}`);
    },
    llmSimUrl: simulated ? `http://127.0.0.1:${ports.llmSim}` : undefined,
    ports,
    credentialKeys,
    pki,
    orchestratorPorts,
    process: (app, replica) => running.get(keyOf(app, replica)),
    start,
    async stopApp(app, graceMs, replica) {
      const key = keyOf(app, replica);
      await running.get(key)?.stop(graceMs);
      running.delete(key);
    },
    async kill(app, replica) {
      const key = keyOf(app, replica);
      await running.get(key)?.kill();
      running.delete(key);
    },
    stop: stopAll,
  };
}
