// A tool runner written from docs/tool-protocol.md with nothing but the plain NATS client: no
// @nats-io/services, no tool-sdk, no contracts. It is what a team in another language would build,
// and the conformance test proves the platform side (catalog, client, NATS tooling) accepts it.
import { createHash, randomBytes } from 'node:crypto';
import {
  headers as natsHeaders,
  Match,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import {
  readArguments,
  readCallHeaders,
  validateArguments,
  type CallHeaders,
  type FlatObjectSchema,
  type Issue,
} from './raw-validate.js';

/** A tool of the raw runner. `run` throws `RawToolError` for a failure the model may see. */
export interface RawTool {
  name: string;
  description: string;
  inputSchema: FlatObjectSchema;
  timeoutMs: number;
  sideEffect: 'none' | 'idempotent' | 'external';
  version: string;
  run(args: Record<string, unknown>, call: CallHeaders): Promise<unknown>;
}

export class RawToolError extends Error {}

export interface RawRunnerOptions {
  nc: NatsConnection;
  name: string;
  version: string;
  tools: RawTool[];
  maxConcurrency?: number;
}

type Status = 'success' | 'invalid' | 'failed' | 'timeout' | 'busy';
const SERVICE_ERROR_CODE: Record<Exclude<Status, 'success'>, number> = {
  invalid: 400,
  failed: 500,
  busy: 503,
  timeout: 504,
};
const QUEUE = 'platform-tool-runners';

interface EndpointStats {
  num_requests: number;
  num_errors: number;
  last_error: string;
  processing_time: number;
  average_processing_time: number;
}

/** The running raw runner; `received` lists the headers of every tool request, for assertions. */
export interface RawRunner {
  readonly id: string;
  readonly received: Array<{ tool: string; headers: Record<string, string> }>;
  stop(): Promise<void>;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Endpoint metadata per the doc's "Discovery metadata" table (all values strings). */
function metadataOf(tool: RawTool): Record<string, string> {
  const schemaText = JSON.stringify(tool.inputSchema);
  return {
    'platform.protocol': '1',
    'platform.kind': 'tool',
    'platform.description': tool.description,
    'platform.input_schema': schemaText,
    'platform.timeout_ms': String(tool.timeoutMs),
    'platform.requires_approval': 'false',
    'platform.side_effect': tool.sideEffect,
    'platform.version': tool.version,
    'platform.schema_hash': `sha256:${createHash('sha256').update(canonical(tool.inputSchema)).digest('hex').slice(0, 16)}`,
  };
}

/** Starts the runner: tool endpoints in the queue group, `$SRV` control subjects without one. */
export async function startRawRunner(options: RawRunnerOptions): Promise<RawRunner> {
  const { nc, name, version } = options;
  const id = randomBytes(11).toString('hex').toUpperCase();
  const started = new Date().toISOString();
  const maxConcurrency = options.maxConcurrency ?? 16;
  const stats = new Map<string, EndpointStats>(
    options.tools.map((t) => [
      t.name,
      { num_requests: 0, num_errors: 0, last_error: '', processing_time: 0, average_processing_time: 0 },
    ]),
  );
  const received: RawRunner['received'] = [];
  const inFlight = new Set<Promise<void>>();
  const identity = { name, id, version, metadata: {} };

  const endpointInfo = (t: RawTool) => ({
    name: t.name,
    subject: `platform.tool.${t.name}`,
    queue_group: QUEUE,
    metadata: metadataOf(t),
  });
  const control: Record<string, () => unknown> = {
    PING: () => ({ type: 'io.nats.micro.v1.ping_response', ...identity }),
    INFO: () => ({
      type: 'io.nats.micro.v1.info_response',
      ...identity,
      description: `raw runner ${name}`,
      endpoints: options.tools.map(endpointInfo),
    }),
    STATS: () => ({
      type: 'io.nats.micro.v1.stats_response',
      ...identity,
      started,
      endpoints: options.tools.map((t) => ({
        name: t.name,
        subject: `platform.tool.${t.name}`,
        queue_group: QUEUE,
        ...stats.get(t.name)!,
      })),
    }),
  };
  // Every instance answers every control request, so these subscriptions have no queue group.
  const controlSubs: Subscription[] = [];
  for (const [verb, answer] of Object.entries(control)) {
    for (const subject of [`$SRV.${verb}`, `$SRV.${verb}.${name}`, `$SRV.${verb}.${name}.${id}`]) {
      controlSubs.push(nc.subscribe(subject, { callback: (_err, msg) => void msg.respond(JSON.stringify(answer())) }));
    }
  }

  const respond = (msg: Msg, tool: RawTool, status: Status, body: Record<string, unknown>, startedAt: number): void => {
    const s = stats.get(tool.name)!;
    const durationMs = Date.now() - startedAt;
    s.num_requests++;
    s.processing_time += durationMs * 1_000_000;
    s.average_processing_time = Math.round(s.processing_time / s.num_requests);
    const payload = JSON.stringify({ status, ...body, ...(status === 'busy' ? {} : { durationMs }) });
    if (status === 'success') {
      msg.respond(payload);
      return;
    }
    const message = (body['error'] as { message: string }).message;
    s.num_errors++;
    s.last_error = `${SERVICE_ERROR_CODE[status]}:${message}`;
    const h = natsHeaders();
    h.set('Nats-Service-Error-Code', String(SERVICE_ERROR_CODE[status]));
    h.set('Nats-Service-Error', message);
    msg.respond(payload, { headers: h });
  };
  const error = (code: string, message: string, issues?: Issue[]) => ({
    error: { code, message, ...(issues ? { issues } : {}) },
  });

  const serve = async (tool: RawTool, msg: Msg, startedAt: number): Promise<void> => {
    const get = (key: string): string => msg.headers?.get(key, Match.IgnoreCase) ?? '';
    received.push({
      tool: tool.name,
      headers: Object.fromEntries([...(msg.headers?.keys() ?? [])].map((k) => [k, msg.headers!.get(k)])),
    });
    const call = readCallHeaders(get);
    if (Array.isArray(call))
      return respond(
        msg,
        tool,
        'invalid',
        error('INVALID_REQUEST', 'the call is missing protocol headers or has invalid ones', call),
        startedAt,
      );
    const args = readArguments(msg.string());
    if (Array.isArray(args))
      return respond(
        msg,
        tool,
        'invalid',
        error('INVALID_REQUEST', 'the request body is not a tool call', args),
        startedAt,
      );
    const issues = validateArguments(tool.inputSchema, args);
    if (issues.length > 0)
      return respond(
        msg,
        tool,
        'invalid',
        error('INVALID_ARGUMENTS', `arguments do not match the input schema of '${tool.name}'`, issues),
        startedAt,
      );
    // The effective deadline is the smaller of the caller's and the tool's own timeout.
    const remainingMs = Math.min(call.deadlineAt, startedAt + tool.timeoutMs) - Date.now();
    if (remainingMs <= 0)
      return respond(
        msg,
        tool,
        'timeout',
        error('DEADLINE_EXCEEDED', 'the call arrived after its deadline'),
        startedAt,
      );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), remainingMs)));
    try {
      const result = await Promise.race([tool.run(args, call).then((output) => ({ output })), deadline]);
      if (result === 'deadline')
        return respond(
          msg,
          tool,
          'timeout',
          error('DEADLINE_EXCEEDED', `'${tool.name}' did not finish within ${remainingMs} ms`),
          startedAt,
        );
      respond(msg, tool, 'success', { output: result.output, truncated: false }, startedAt);
    } catch (err) {
      const message =
        err instanceof RawToolError
          ? err.message
          : `'${tool.name}' failed while running; the runner logged the details`;
      respond(msg, tool, 'failed', error('HANDLER_FAILED', message), startedAt);
    } finally {
      clearTimeout(timer);
    }
  };

  const endpointSubs = options.tools.map((tool) =>
    nc.subscribe(`platform.tool.${tool.name}`, {
      queue: QUEUE,
      callback: (_err, msg) => {
        const startedAt = Date.now();
        // `busy` goes out before any work starts, so callers may always retry it elsewhere.
        if (inFlight.size >= maxConcurrency)
          return respond(
            msg,
            tool,
            'busy',
            error('RUNNER_BUSY', `runner is at its concurrency limit (${maxConcurrency})`),
            startedAt,
          );
        const work = serve(tool, msg, startedAt).finally(() => inFlight.delete(work));
        inFlight.add(work);
      },
    }),
  );
  await nc.flush();

  return {
    id,
    received,
    async stop() {
      // Drain: stop taking calls first (the queue group sends new ones to other replicas),
      // finish what is running, then leave discovery.
      await Promise.all(endpointSubs.map((s) => s.drain()));
      await Promise.allSettled([...inFlight]);
      await Promise.all(controlSubs.map((s) => s.drain()));
    },
  };
}
