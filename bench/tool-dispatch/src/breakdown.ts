// Where the CPU of a no-op tool call goes, step by step, in one process without NATS or sockets:
// each step ToolClient.attempt and the runner's endpoint handler take on top of a bare request,
// measured alone, and next to it a cheaper way to do the same work (a candidate fix; the library
// code is unchanged). Ends with both sides end to end, to compare with main.ts's CPU per call.
// Run: npx nx run bench-tool-dispatch:breakdown   (env: ITERATIONS, REPEATS)
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { headers as natsHeaders, MsgHdrsImpl, TD, TE, type MsgHdrs } from '@nats-io/nats-core/internal';
import {
  TOOL_PROTOCOL_VERSION,
  TOOL_QUEUE_GROUP,
  ToolCallHeader,
  ToolCallMeta,
  ToolCallRequest,
  ToolCallResponse,
  toolSubject,
} from '@platform/contracts';
import { createLogger, headerGetter, headerSetter, type NatsConnection } from '@platform/service-kit';
import { runInMessagingServerSpan, startMessagingClientSpan } from '@platform/telemetry';
import { handleToolCall, RUNNER_DEFAULTS, ToolClient, truncateOutput } from '@platform/tool-sdk';
import { callIdFor, noopArguments, noopTool, turnScope } from './noop-tool.js';
import { libraryBuild, NOOP_TOOL, tracingActive } from './protocol.js';
import { median } from '@platform/testing';

const ITERATIONS = Number(process.env['ITERATIONS'] ?? 20_000);
const REPEATS = Number(process.env['REPEATS'] ?? 7);

let sink = 0;
const keep = (value: unknown): void => {
  sink += value === undefined ? 0 : 1;
};

/** Median over REPEATS of the mean cost of one `fn()` in µs; async results are awaited one by one. */
async function cost(fn: () => unknown): Promise<number> {
  const once = async (count: number): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const result = fn();
      keep(result instanceof Promise ? await result : result);
    }
    return ((performance.now() - started) * 1000) / count;
  };
  await once(Math.min(ITERATIONS, 2_000)); // JIT warm-up
  const runs: number[] = [];
  for (let r = 0; r < REPEATS; r++) runs.push(await once(ITERATIONS));
  return median(runs);
}

const rows: string[] = [];
async function step(
  label: string,
  now: () => unknown,
  candidate?: { label: string; fn: () => unknown },
): Promise<number> {
  const current = await cost(now);
  let line = `  ${label.padEnd(64)} ${current.toFixed(2).padStart(7)} µs`;
  if (candidate) {
    const better = await cost(candidate.fn);
    line += `  -> ${better.toFixed(2).padStart(6)} µs  ${candidate.label}`;
  }
  rows.push(line);
  return current;
}

// ----- inputs shaped like main.ts's calls -----
const logger = createLogger({
  service: 'breakdown',
  level: 'warn',
  destination: new Writable({ write: (_c, _e, done) => done() }),
});
let seq = 0;
const deadlineAt = (): number => Date.now() + 10_000;
const buildHeaders = (): MsgHdrs => {
  const h = natsHeaders();
  const set = headerSetter(h);
  set(ToolCallHeader.callId, callIdFor(seq++));
  set(ToolCallHeader.tenant, turnScope.tenantId);
  set(ToolCallHeader.conversation, turnScope.conversationId);
  set(ToolCallHeader.run, turnScope.runId);
  set(ToolCallHeader.deadline, String(deadlineAt()));
  set(ToolCallHeader.protocol, TOOL_PROTOCOL_VERSION);
  return h;
};
const body = JSON.stringify({ arguments: noopArguments });
const bodyBytes = TE.encode(body);
const headerBytes = (buildHeaders() as MsgHdrsImpl).encode();
const replyBytes = TE.encode(JSON.stringify({ status: 'success', output: {}, durationMs: 0 }));
const subject = toolSubject(NOOP_TOOL);
const shutdown = new AbortController();
const env = { logger, maxResultBytes: RUNNER_DEFAULTS.maxResultBytes, shutdownSignal: shutdown.signal };

// ----- candidate fixes, written here only to price them -----
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const CALL_ID = /^[\x21-\x7e]{1,256}$/;
/** Plain checks for the common valid case; zod stays the fallback that names the problems. */
function fastMeta(get: (k: string) => string | undefined): ToolCallMeta | undefined {
  const callId = get(ToolCallHeader.callId);
  const tenantId = get(ToolCallHeader.tenant);
  const conversationId = get(ToolCallHeader.conversation);
  const runId = get(ToolCallHeader.run) || undefined;
  const deadline = Number(get(ToolCallHeader.deadline));
  if (
    !callId ||
    !CALL_ID.test(callId) ||
    !tenantId ||
    !ID.test(tenantId) ||
    !conversationId ||
    !ID.test(conversationId)
  )
    return undefined;
  if ((runId !== undefined && !ID.test(runId)) || !Number.isSafeInteger(deadline) || deadline <= 0) return undefined;
  return { callId, tenantId, conversationId, runId, deadlineAt: deadline };
}
/** One pass over the decoded headers into a Map, instead of has() + get() (each a scan of all keys). */
function mapGetter(h: MsgHdrs): (k: string) => string | undefined {
  const map = new Map<string, string>();
  for (const [k, v] of h) if (v[0] !== undefined) map.set(k, v[0]);
  return (k) => map.get(k);
}
function fastResponse(json: unknown): boolean {
  const r = json as { status?: unknown; durationMs?: unknown; truncated?: unknown } | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    r.status === 'success' &&
    (r.durationMs === undefined || (typeof r.durationMs === 'number' && r.durationMs >= 0)) &&
    (r.truncated === undefined || typeof r.truncated === 'boolean')
  );
}

// ----- a connection stub: what nc.request costs in JS on top of the wire is the same for both kinds -----
const reply = { data: replyBytes, json: () => JSON.parse(TD.decode(replyBytes)) as unknown };
const stub = {
  request: (_subject: string, payload: string, opts?: { headers?: MsgHdrs }) => {
    keep(TE.encode(payload)); // nc.publish encodes the payload
    if (opts?.headers) keep((opts.headers as MsgHdrsImpl).encode()); // and the headers
    return Promise.resolve(reply);
  },
} as unknown as NatsConnection;
const client = new ToolClient({ nc: stub, logger });
const barePayload = 'x'.repeat(body.length + headerBytes.length);
const turn = new AbortController();

rows.push(
  `tool call cost by step, in-process (${REPEATS} x ${ITERATIONS} iterations each, median; node ${process.version}; ${libraryBuild()}; OpenTelemetry SDK ${tracingActive() ? 'loaded' : 'not loaded'})`,
);
rows.push(`  ${'step'.padEnd(64)} ${'now'.padStart(10)}     candidate fix`);
rows.push('orchestrator side (ToolClient.attempt), on top of the request itself');
await step('6 protocol headers: natsHeaders() + set() each', buildHeaders, {
  label: 'append() on the fresh object (set = delete + append, each a key scan)',
  fn: () => {
    const h = natsHeaders();
    h.append(ToolCallHeader.callId, callIdFor(seq++));
    h.append(ToolCallHeader.tenant, turnScope.tenantId);
    h.append(ToolCallHeader.conversation, turnScope.conversationId);
    h.append(ToolCallHeader.run, turnScope.runId);
    h.append(ToolCallHeader.deadline, String(deadlineAt()));
    h.append(ToolCallHeader.protocol, TOOL_PROTOCOL_VERSION);
    return h;
  },
});
const built = buildHeaders() as MsgHdrsImpl;
await step('encode the headers (publish does it; the bare request has none)', () => built.encode());
await step(
  'JSON.stringify(body) + Buffer.byteLength (span attribute)',
  () => Buffer.byteLength(JSON.stringify({ arguments: noopArguments })),
  {
    label: 'no byteLength unless the span records',
    fn: () => JSON.stringify({ arguments: noopArguments }),
  },
);
await step('startMessagingClientSpan + inject + end (no SDK: no-op span)', () => {
  const span = startMessagingClientSpan({ subject, bodySize: body.length });
  span.inject(() => undefined);
  span.end();
  return span;
});
await step('reply.json() (decode + JSON.parse)', () => reply.json());
const replyJson = reply.json();
await step('ToolCallResponse.safeParse(reply)', () => ToolCallResponse.safeParse(replyJson), {
  label: 'plain check of the success shape, zod only otherwise',
  fn: () => fastResponse(replyJson) || ToolCallResponse.safeParse(replyJson),
});

rows.push('runner side (serveRunner endpoint + handleToolCall); the bare echo does none of it');
await step('decode the request headers (msg.headers: MsgHdrsImpl.decode)', () => MsgHdrsImpl.decode(headerBytes));
const decoded = MsgHdrsImpl.decode(headerBytes);
const readAll = (get: (k: string) => string | undefined): unknown => [
  get(ToolCallHeader.callId),
  get(ToolCallHeader.tenant),
  get(ToolCallHeader.conversation),
  get(ToolCallHeader.run),
  get(ToolCallHeader.deadline),
];
await step('read 5 protocol headers via headerGetter (has + get, key scans)', () => readAll(headerGetter(decoded)), {
  label: 'one pass into a Map, then Map.get',
  fn: () => readAll(mapGetter(decoded)),
});
const getter = headerGetter(decoded);
await step(
  'parseMeta: ToolCallMeta.safeParse (3 id regexes, coerce)',
  () =>
    ToolCallMeta.safeParse({
      callId: getter(ToolCallHeader.callId),
      tenantId: getter(ToolCallHeader.tenant),
      conversationId: getter(ToolCallHeader.conversation),
      runId: getter(ToolCallHeader.run) || undefined,
      deadlineAt: getter(ToolCallHeader.deadline),
    }),
  {
    label: 'plain checks with the same rules, zod only on failure',
    fn: () => fastMeta(getter),
  },
);
await step('msg.string() of the body (TextDecoder)', () => TD.decode(bodyBytes));
await step('parseBody: JSON.parse + ToolCallRequest.safeParse', () => ToolCallRequest.safeParse(JSON.parse(body)));
await step('tool.input.safeParse(arguments)', () => noopTool.input.safeParse(noopArguments));
await step(
  'logger.child({ tool, callId, tenantId }) per call (pino)',
  () => logger.child({ tool: NOOP_TOOL, callId: 'call_1', tenantId: turnScope.tenantId }),
  {
    label: 'create it lazily, when the handler first logs (noop: never)',
    fn: () => undefined,
  },
);
await step(
  'AbortController + shutdown listener add/remove per call',
  () => {
    const c = new AbortController();
    const on = (): void => c.abort();
    shutdown.signal.addEventListener('abort', on, { once: true });
    shutdown.signal.removeEventListener('abort', on);
    return c;
  },
  { label: 'create it lazily on first context.signal read (noop: never)', fn: () => undefined },
);
await step('deadline setTimeout + clearTimeout per call', () => clearTimeout(setTimeout(() => undefined, 10_000)));
await step(
  'Promise.race([handler().then(wrap), deadline]) (async)',
  () => {
    const deadline = new Promise<'deadline'>(() => undefined);
    return Promise.race([noopTool.handler({}, {} as never).then((output) => ({ output })), deadline]);
  },
  { label: 'await the handler; settle the deadline from the timer', fn: () => noopTool.handler({}, {} as never) },
);
await step('truncateOutput({}) + JSON.stringify(response)', () => [
  truncateOutput({}, RUNNER_DEFAULTS.maxResultBytes),
  JSON.stringify({ status: 'success', output: {}, durationMs: 0 }),
]);
await step('runInMessagingServerSpan wrapper, empty body (no SDK)', () =>
  runInMessagingServerSpan({ subject, getHeader: getter, queueGroup: TOOL_QUEUE_GROUP, bodySize: 34 }, () => 1),
);

rows.push('end to end (compare with "CPU per call" of main.ts: tool minus bare)');
const toolClient = await step('orchestrator: ToolClient.call via a stub connection', () =>
  client.call({
    toolName: NOOP_TOOL,
    arguments: noopArguments,
    callId: callIdFor(seq++),
    ...turnScope,
    deadlineAt: deadlineAt(),
    signal: turn.signal,
    sideEffect: 'none',
    dedupe: false,
  }),
);
const bareClient = await step('orchestrator: bare request via the same stub', () =>
  stub.request('bench.echo', barePayload),
);
const runner = await step('runner: decode headers + server span + handleToolCall + stringify', () => {
  const get = headerGetter(MsgHdrsImpl.decode(headerBytes));
  return runInMessagingServerSpan(
    { subject, getHeader: get, queueGroup: TOOL_QUEUE_GROUP, bodySize: bodyBytes.length },
    async (span) => {
      const response = await handleToolCall(noopTool, get, TD.decode(bodyBytes), env);
      span.setAttribute('platform.tool.status', response.status);
      return JSON.stringify(response);
    },
  );
});
rows.push(
  `  => SDK CPU per call on top of a bare request: orchestrator ${(toolClient - bareClient).toFixed(1)} µs + runner ${runner.toFixed(1)} µs = ${(toolClient - bareClient + runner).toFixed(1)} µs`,
);
process.stdout.write(`${rows.join('\n')}\n`);
if (sink < 0) process.stdout.write('unreachable\n');
