import { z } from 'zod';
import { JsonObject, OptionalTimestamp } from '../openapi/common-schemas.js';

/** A runner replica serving a tool, with its NATS micro `$SRV.STATS` for the tool's endpoint. */
const RunnerInstance = z.object({
  instanceId: z.string(),
  version: z.string(),
  started: OptionalTimestamp,
  statsAvailable: z
    .boolean()
    .meta({ description: 'False when the replica did not answer `$SRV.STATS` in time (the figures are then 0).' }),
  requests: z.number().int().min(0),
  errors: z.number().int().min(0),
  lastError: z.string().nullable(),
  processingMs: z.number().min(0).meta({ description: "Total time spent in the tool's handler." }),
  averageProcessingMs: z.number().min(0),
});

/** A tool's circuit breaker, in the orchestrator replica that answered. */
const ToolBreaker = z
  .object({
    state: z.enum(['closed', 'open', 'half_open']),
    consecutiveFailures: z.number().int().min(0),
    retryInMs: z.number().int().min(0).meta({ description: 'While open: how long calls are still refused.' }),
  })
  .meta({
    description:
      'closed: calls go through; open: refused at once (TOOL_CIRCUIT_OPEN) for retryInMs; half_open: the next call is a trial. Each orchestrator replica keeps its own.',
  });

/** A tool of the live catalog. */
export const CatalogTool = z
  .object({
    name: z.string(),
    description: z.string(),
    inputSchema: JsonObject.meta({ description: "The JSON Schema of the tool's arguments." }),
    kind: z.enum(['tool', 'agent']),
    runner: z.string().meta({ description: 'The service name of the runner that serves it.' }),
    version: z.string(),
    requiresApproval: z.boolean(),
    timeoutMs: z.number().int(),
    sideEffect: z.string().meta({ description: 'none, idempotent or external.' }),
    instances: z.number().int().meta({ description: 'Runner replicas seen serving it.' }),
    runnerInstances: z.array(RunnerInstance),
    breaker: ToolBreaker,
  })
  .meta({ id: 'CatalogTool' });

/** A tool call a client tried (POST /v1/tools/{name}/calls), as journaled. */
export const ToolCall = z
  .object({
    callId: z.string(),
    tool: z.string(),
    status: z.enum(['running', 'success', 'failed', 'invalid', 'timeout', 'denied', 'cancelled']).meta({
      description: 'running while the call is under way (or its orchestrator stopped mid-call), then its outcome.',
    }),
    output: z.unknown().optional().meta({ description: "A successful call's output." }),
    truncated: z.boolean(),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .meta({ description: 'Why the call did not succeed (the tool call error codes of docs/api.md).' }),
    durationMs: z.number().int().min(0),
    runner: z.string(),
    arguments: JsonObject,
    startedAt: OptionalTimestamp,
    finishedAt: OptionalTimestamp,
  })
  .meta({ id: 'ToolCall' });
export type ToolCall = z.infer<typeof ToolCall>;

export const CATALOG_TOOL_EXAMPLE: z.infer<typeof CatalogTool> = {
  name: 'calculator',
  description: 'Evaluates arithmetic.',
  inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  kind: 'tool',
  runner: 'builtin-tools',
  version: '1.0.0',
  requiresApproval: false,
  timeoutMs: 5000,
  sideEffect: 'none',
  instances: 1,
  runnerInstances: [
    {
      instanceId: 'Xk3v9yQ2',
      version: '1.0.0',
      started: '2026-06-01T09:00:00.000Z',
      statsAvailable: true,
      requests: 42,
      errors: 1,
      lastError: '500:HANDLER_FAILED',
      processingMs: 84.5,
      averageProcessingMs: 2.01,
    },
  ],
  breaker: { state: 'closed', consecutiveFailures: 0, retryInMs: 0 },
};

export const TOOL_CALL_EXAMPLE: ToolCall = {
  callId: 'try_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01',
  tool: 'calculator',
  status: 'success',
  output: { result: 4 },
  truncated: false,
  error: null,
  durationMs: 3,
  runner: 'builtin-tools',
  arguments: { expression: '2 + 2' },
  startedAt: '2026-06-01T09:30:00.000Z',
  finishedAt: '2026-06-01T09:30:00.003Z',
};
