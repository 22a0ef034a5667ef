import {
  TOOL_QUEUE_GROUP,
  ToolCallHeader,
  toolEndpointMetadata,
  toolSubject,
  type ToolCallResponse,
} from '@platform/contracts';
import { headerGetter, type Logger, type NatsConnection } from '@platform/service-kit';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { runInMessagingServerSpan } from '@platform/telemetry';
import svcm from '@nats-io/services';
import type { Service, ServiceMsg } from '@nats-io/services';
import { agentEndpointMetadata } from './agent-metadata.js';
import { CallDedupe, type DedupeCall, type IdempotencyOptions } from './call-dedupe.js';
import { outcome } from './call-outcome.js';
import { DEDUPE_METADATA_KEY, REPLAYED_HEADER } from './dedupe-protocol.js';
import type { AgentToolDefinition } from './define-agent-tool.js';
import type { ToolDefinition } from './define-tool.js';
import { handleAgentCall } from './handle-agent-call.js';
import { handleToolCall, type CallEnvironment } from './handle-call.js';
import { serveToolBatches } from './serve-batches.js';
import { inputJsonSchema, schemaHash } from './json-schema.js';
import { connectCredentialService, type CredentialClientOptions } from './tool-credentials.js';

export interface RunnerOptions {
  nc: NatsConnection;
  /** The runner's service name in discovery (`$SRV.INFO`), e.g. `builtin-tools`. */
  name: string;
  /** The runner's version (semver). */
  version: string;
  description?: string;
  tools: ToolDefinition[];
  /**
   * Agent-tools (`defineAgentTool`), served beside the tools as endpoints of kind `agent` on the same
   * subjects and queue group. Names are shared with `tools` and must be unique.
   */
  agents?: AgentToolDefinition[];
  logger: Logger;
  /** Calls this instance runs at once; past it, callers get `busy` and try another replica. Default 64. */
  maxConcurrency?: number;
  /** Results larger than this many bytes of JSON are truncated at the source. Default 256 KiB. */
  maxResultBytes?: number;
  /**
   * Effectively-once for `external` tools and agents: finished results are kept in Redis by call
   * (for agents: by call and step), and a duplicate call gets the stored result instead of running
   * the handler again. The runner then publishes `platform.dedupe: "true"` on those endpoints. Without it, or while Redis is down,
   * `external` calls are at-least-once under retries (see docs/tool-protocol.md).
   */
  idempotency?: IdempotencyOptions;
  /**
   * The credential service, for tools that declare `credentials`: their handlers read and save
   * through `ctx.credentials` with the grant each call carries.
   */
  credentials?: CredentialClientOptions;
}

export const RUNNER_DEFAULTS = {
  maxConcurrency: 64,
  maxResultBytes: 256 * 1024,
} as const;

/** A running tool runner: one NATS micro service, one endpoint per tool or agent. */
export interface ToolRunner {
  /** The instance id discovery reports. */
  readonly id: string;
  readonly inFlight: number;
  /**
   * Drains: stops taking calls, lets in-flight calls finish for up to `graceMs`, then aborts
   * the rest (their handlers see `context.signal` fire).
   */
  stop(graceMs: number): Promise<void>;
}

/** NATS micro error codes, so `$SRV.STATS` and generic NATS tooling see failed calls as errors. */
const serviceErrorCode: Record<Exclude<ToolCallResponse['status'], 'success'>, number> = {
  invalid: 400,
  failed: 500,
  busy: 503,
  timeout: 504,
};

function respond(msg: ServiceMsg, response: ToolCallResponse, replayed = false): void {
  const body = JSON.stringify(response);
  // The replay marker rides in a header: the v1 response schema has no field for it.
  const opts = replayed ? { headers: natsHeaders() } : undefined;
  opts?.headers.set(REPLAYED_HEADER, 'true');
  if (response.status === 'success') msg.respond(body, opts);
  else msg.respondError(serviceErrorCode[response.status], response.error.message, body, opts);
}

/** One endpoint of the runner: a tool or an agent, with its metadata and call handler. */
interface Endpoint {
  name: string;
  metadata: Record<string, string>;
  /** Dedupe for this endpoint (only `external` ones, and only when the runner has a result store). */
  guard: CallDedupe | undefined;
  handle: (
    getHeader: (key: string) => string | undefined,
    body: string,
    env: CallEnvironment,
  ) => Promise<ToolCallResponse>;
}

function toolEndpoint(tool: ToolDefinition, guard: CallDedupe | undefined): Endpoint {
  const inputSchema = tool.inputJsonSchema ?? inputJsonSchema(tool.input);
  return {
    name: tool.name,
    metadata: {
      ...toolEndpointMetadata({
        kind: 'tool',
        description: tool.description,
        inputSchema,
        timeoutMs: tool.timeoutMs,
        requiresApproval: tool.requiresApproval,
        sideEffect: tool.sideEffect,
        version: tool.version,
        schemaHash: schemaHash(inputSchema),
        ...(tool.credentials.length > 0 ? { credentials: [...tool.credentials] } : {}),
        ...(tool.executor ? { executor: true as const } : {}),
      }),
      ...(guard ? { [DEDUPE_METADATA_KEY]: 'true' } : {}),
    },
    guard,
    handle: (getHeader, body, env) => handleToolCall(tool, getHeader, body, env),
  };
}

function agentEndpoint(agent: AgentToolDefinition, guard: CallDedupe | undefined): Endpoint {
  return {
    name: agent.name,
    metadata: agentEndpointMetadata(agent, guard !== undefined),
    guard,
    handle: (getHeader, body, env) => handleAgentCall(agent, getHeader, body, env),
  };
}

/** Serves tools and agents as a NATS micro service that the standard discovery protocol sees. */
export async function serveRunner(options: RunnerOptions): Promise<ToolRunner> {
  const maxConcurrency = options.maxConcurrency ?? RUNNER_DEFAULTS.maxConcurrency;
  const maxResultBytes = options.maxResultBytes ?? RUNNER_DEFAULTS.maxResultBytes;
  const names = new Set<string>();
  for (const { name } of [...options.tools, ...(options.agents ?? [])]) {
    if (names.has(name)) throw new Error(`tool '${name}' is defined twice in runner '${options.name}'`);
    names.add(name);
  }

  const service: Service = await new svcm.Svcm(options.nc).add({
    name: options.name,
    version: options.version,
    description: options.description ?? `tool runner ${options.name}`,
    queue: TOOL_QUEUE_GROUP,
  });
  const logger = options.logger.child({ runner: options.name, instance: service.info().id });
  const shutdown = new AbortController();
  /** Work being done (single calls and batches), awaited when draining. */
  const inFlight = new Set<Promise<void>>();
  /** Calls running now (a batch counts each of its calls): what `maxConcurrency` bounds. */
  let activeCalls = 0;
  const slots = {
    take: (wanted: number): number => {
      const taken = Math.max(0, Math.min(wanted, maxConcurrency - activeCalls));
      activeCalls += taken;
      return taken;
    },
    release: (): void => {
      activeCalls--;
    },
  };
  const dedupe = options.idempotency ? new CallDedupe(options.idempotency, logger) : undefined;
  const credentialRpc = options.credentials ? connectCredentialService(options.credentials) : undefined;

  const endpoints: Endpoint[] = [
    ...options.tools.map((tool) => toolEndpoint(tool, tool.sideEffect === 'external' ? dedupe : undefined)),
    ...(options.agents ?? []).map((agent) =>
      agentEndpoint(agent, agent.sideEffect === 'external' ? dedupe : undefined),
    ),
  ];
  for (const endpoint of endpoints) {
    const { name, guard } = endpoint;
    const subject = toolSubject(name);
    service.addEndpoint(name, {
      subject,
      queue: TOOL_QUEUE_GROUP,
      metadata: endpoint.metadata,
      handler: (err, msg) => {
        if (err) {
          logger.error({ err, tool: name }, 'endpoint subscription failed');
          return;
        }
        if (slots.take(1) === 0) {
          respond(msg, outcome.busy(`runner is at its concurrency limit (${maxConcurrency})`));
          return;
        }
        const getHeader = headerGetter(msg.headers);
        const work = runInMessagingServerSpan(
          { subject, getHeader, queueGroup: TOOL_QUEUE_GROUP, bodySize: msg.data.length },
          async (span) => {
            let replayed = false;
            const once = guard
              ? async (call: DedupeCall, run: () => Promise<ToolCallResponse>): Promise<ToolCallResponse> => {
                  const result = await guard.once(call, run);
                  replayed = result.replayed;
                  return result.response;
                }
              : undefined;
            const response = await endpoint.handle(getHeader, msg.string(), {
              logger,
              maxResultBytes,
              shutdownSignal: shutdown.signal,
              once,
              credentialRpc,
              credentialGrant: getHeader(ToolCallHeader.credentialGrant) || undefined,
            });
            span.setAttribute('platform.tool.status', response.status);
            if (replayed) span.setAttribute('platform.tool.replayed', true);
            respond(msg, response, replayed);
          },
        )
          .catch((error: unknown) => logger.error({ err: error, tool: name }, 'could not answer a tool call'))
          .finally(() => {
            slots.release();
            inFlight.delete(work);
          });
        inFlight.add(work);
      },
    });
  }
  const batches = serveToolBatches(options.nc, options.tools, {
    logger,
    maxResultBytes,
    shutdownSignal: shutdown.signal,
    credentialRpc,
    guardOf: (tool) => (tool.sideEffect === 'external' ? dedupe : undefined),
    slots,
    track: (work) => {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    },
  });
  // Make sure the server has registered every endpoint before callers are told we are up.
  await options.nc.flush();
  logger.info(
    {
      tools: options.tools.map((t) => t.name),
      agents: (options.agents ?? []).map((a) => a.name),
      maxConcurrency,
      dedupe: Boolean(dedupe),
    },
    'tool runner serving',
  );

  return {
    id: service.info().id,
    get inFlight() {
      return activeCalls;
    },
    async stop(graceMs: number) {
      batches.stop();
      await service.stop();
      const drained = Promise.allSettled([...inFlight]);
      const grace = new Promise<'grace over'>((resolve) => setTimeout(() => resolve('grace over'), graceMs).unref());
      if ((await Promise.race([drained, grace])) === 'grace over') {
        logger.warn({ inFlight: activeCalls }, 'grace period over; aborting in-flight tool calls');
        shutdown.abort(new Error('runner shutting down'));
        await drained;
      }
      credentialRpc?.close();
      logger.info('tool runner stopped');
    },
  };
}
