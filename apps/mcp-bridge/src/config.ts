import { readFileSync } from 'node:fs';
import { env, loadConfig, loggingEnv, natsEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';
import { mcpServerListSchema, type McpServerConfig } from './server-config.js';

function parseJson(text: string, ctx: z.RefinementCtx): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `is not valid JSON: ${(err as Error).message}` });
    return z.NEVER;
  }
}

function readJsonFile(path: string, ctx: z.RefinementCtx): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      message: `cannot read '${path}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    });
    return z.NEVER;
  }
  return parseJson(text, ctx);
}

/**
 * The bridge's environment. The keys are the variable names, so an error in a server entry reads
 * `MCP_SERVERS.0.url: ...` (index 0 of the array; of the file's array for `MCP_SERVERS_FILE`).
 */
export function bridgeConfigSchema(environment: NodeJS.ProcessEnv = process.env) {
  const servers = mcpServerListSchema(environment);
  return z
    .object({
      /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
      ...natsEnv,
      /** Service name in discovery; replicas (and the per-server services of one instance) share it. */
      RUNNER_NAME: z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/)
        .default('mcp-bridge'),
      /** A JSON array of server entries (see README). */
      MCP_SERVERS: z.string().transform(parseJson).pipe(servers).optional(),
      /** A path to a JSON file holding that array, instead of `MCP_SERVERS`. */
      MCP_SERVERS_FILE: z.string().transform(readJsonFile).pipe(servers).optional(),
      /** First and longest pause between reconnection attempts to a server that is down. */
      MCP_RECONNECT_MIN_MS: env.positiveInt().default(500),
      MCP_RECONNECT_MAX_MS: env.positiveInt().default(30_000),
      /** How long connecting (spawn + initialize + listing tools) may take. */
      MCP_CONNECT_TIMEOUT_MS: env.positiveInt().default(20_000),
      /** Liveness pings to each connected server; a failed ping counts as a disconnect. 0 disables them. */
      MCP_PING_INTERVAL_MS: env.nonNegativeInt().default(15_000),
      RUNNER_MAX_CONCURRENCY: env.positiveInt().default(64),
      TOOL_MAX_RESULT_BYTES: env.positiveInt().default(256 * 1024),
      /** How long in-flight calls may finish after SIGTERM. */
      ...shutdownEnv(),
      ...loggingEnv,
    })
    .superRefine((config, ctx) => {
      if (config.MCP_SERVERS && config.MCP_SERVERS_FILE) {
        ctx.addIssue({
          code: 'custom',
          path: ['MCP_SERVERS_FILE'],
          message: 'set either MCP_SERVERS or MCP_SERVERS_FILE, not both',
        });
      } else if (!config.MCP_SERVERS && !config.MCP_SERVERS_FILE) {
        ctx.addIssue({
          code: 'custom',
          path: ['MCP_SERVERS'],
          message: 'required: a JSON array of MCP servers (or MCP_SERVERS_FILE, a path to one)',
        });
      }
    });
}

export type BridgeConfig = z.output<ReturnType<typeof bridgeConfigSchema>>;

/** Reads and checks the environment once at boot; throws a ConfigError naming every bad variable or field. */
export function loadBridgeConfig(environment: NodeJS.ProcessEnv = process.env): BridgeConfig {
  return loadConfig(bridgeConfigSchema(environment), environment);
}

/** The configured servers, from whichever of the two variables was set. */
export function configuredServers(config: BridgeConfig): McpServerConfig[] {
  return config.MCP_SERVERS ?? config.MCP_SERVERS_FILE ?? [];
}
