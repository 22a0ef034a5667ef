import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { freePort, freePorts } from './ports.js';
import { startServiceProcess, type ServiceMode, type ServiceProcess } from './service-process.js';

/** The apps a full platform runs, in start order (each only needs the ones before it). */
export const PLATFORM_APPS = ['llm-sim', 'memory', 'credential', 'tool-runner', 'agent-pool', 'orchestrator', 'trigger', 'api'] as const;
export type PlatformApp = (typeof PLATFORM_APPS)[number];
export type PlatformPort = 'api' | 'memory' | 'credential' | 'agentPool' | 'orchestrator' | 'trigger' | 'llmSim';

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
  mode?: ServiceMode;
  /** Extra environment for every app, e.g. `{ OTEL_EXPORTER_OTLP_ENDPOINT: ... }`. */
  commonEnv?: Record<string, string>;
  /** Extra environment per app, e.g. `{ orchestrator: { MAX_TURNS: '3' } }`. */
  env?: Partial<Record<PlatformApp, Record<string, string>>>;
  /** Keys of the credential service and its callers; fresh random ones when absent. */
  credentialKeys?: CredentialKeys;
  /** Which apps to start (default all, minus llm-sim when a model is given). */
  apps?: PlatformApp[];
  onLine?: (app: PlatformApp, line: string) => void;
}

/** A running platform: every service its own OS process, reachable on loopback. */
export interface Platform {
  readonly apiUrl: string;
  readonly llmSimUrl: string | undefined;
  readonly ports: Record<PlatformPort, number>;
  readonly credentialKeys: CredentialKeys;
  process(app: PlatformApp): ServiceProcess | undefined;
  /** Starts an app (again) with the same configuration and ports. */
  start(app: PlatformApp): Promise<ServiceProcess>;
  stopApp(app: PlatformApp, graceMs?: number): Promise<void>;
  kill(app: PlatformApp): Promise<void>;
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

/** The port each app listens on (tool-runner listens on none). */
const PORT_OF: Partial<Record<PlatformApp, PlatformPort>> = { 'llm-sim': 'llmSim', memory: 'memory', credential: 'credential', 'agent-pool': 'agentPool', orchestrator: 'orchestrator', trigger: 'trigger', api: 'api' };

/** Starts the platform's services as separate processes against the given NATS, Postgres and Redis. */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const ports = await choosePorts(options.ports);
  const simulated = !options.model;
  const credentialKeys = options.credentialKeys ?? generateCredentialKeys();
  const credentialAddress = (): string => `127.0.0.1:${ports.credential}`;
  const common = { NATS_URL: options.natsUrl, LOG_LEVEL: process.env['PLATFORM_LOG_LEVEL'] ?? 'info', ...options.commonEnv };
  // Built when an app starts, so an app started after a port was chosen again sees the new one.
  const envFor = (app: PlatformApp): Record<string, string> => {
    const model = options.model ?? { baseUrl: `http://127.0.0.1:${ports.llmSim}/v1`, apiKey: 'sim-key', model: 'sim-1' };
    const envs: Record<PlatformApp, Record<string, string>> = {
      'llm-sim': { ...common, LLM_SIM_PORT: String(ports.llmSim), LLM_SIM_API_KEY: model.apiKey },
      memory: {
        ...common,
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
        DATABASE_URL: options.databaseUrl,
        GRPC_PORT: String(ports.credential),
        CREDENTIAL_KEYRING: credentialKeys.keyring,
        CREDENTIAL_GRANT_PUBLIC_KEYS: credentialKeys.grantPublicKeys,
        CREDENTIAL_PLATFORM_TOKENS: credentialKeys.platformToken,
      },
      'tool-runner': { ...common, REDIS_URL: options.redisUrl },
      'agent-pool': { ...common, DATABASE_URL: options.databaseUrl, GRPC_PORT: String(ports.agentPool), CATALOG_REFRESH_MS: '1000' },
      orchestrator: {
        ...common,
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
      },
      trigger: { ...common, DATABASE_URL: options.databaseUrl, GRPC_PORT: String(ports.trigger), ORCHESTRATOR_ADDRESS: `127.0.0.1:${ports.orchestrator}` },
      api: {
        ...common,
        HTTP_PORT: String(ports.api),
        TRIGGER_ADDRESS: `127.0.0.1:${ports.trigger}`,
        ORCHESTRATOR_ADDRESS: `127.0.0.1:${ports.orchestrator}`,
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
  const running = new Map<PlatformApp, ServiceProcess>();
  const startedOnce = new Set<PlatformApp>();
  const start = async (app: PlatformApp): Promise<ServiceProcess> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const proc = await startServiceProcess({
          app,
          mode: options.mode ?? 'dist',
          env: { ...envFor(app), ...options.env?.[app] },
          onLine: options.onLine ? (line) => options.onLine?.(app, line) : undefined,
        });
        running.set(app, proc);
        startedOnce.add(app);
        return proc;
      } catch (err) {
        // A chosen port can be taken by another process before the app binds it (suites run in
        // parallel). On a first start nothing points at it yet: choose another and try again.
        const key = PORT_OF[app];
        const clash = /EADDRINUSE/.test(err instanceof Error ? err.message : String(err));
        if (!clash || !key || options.ports?.[key] !== undefined || startedOnce.has(app) || attempt >= 3) throw err;
        ports[key] = await freePort();
      }
    }
  };
  const stopAll = async (): Promise<void> => {
    for (const app of [...PLATFORM_APPS].reverse()) {
      await running.get(app)?.stop();
      running.delete(app);
    }
  };

  const apps = options.apps ?? PLATFORM_APPS.filter((app) => simulated || app !== 'llm-sim');
  try {
    for (const app of PLATFORM_APPS) if (apps.includes(app)) await start(app);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    apiUrl: `http://127.0.0.1:${ports.api}`,
    llmSimUrl: simulated ? `http://127.0.0.1:${ports.llmSim}` : undefined,
    ports,
    credentialKeys,
    process: (app) => running.get(app),
    start,
    async stopApp(app, graceMs) {
      await running.get(app)?.stop(graceMs);
      running.delete(app);
    },
    async kill(app) {
      await running.get(app)?.kill();
      running.delete(app);
    },
    stop: stopAll,
  };
}
