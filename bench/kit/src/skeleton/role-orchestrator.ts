// The skeleton's orchestrator: the exchanges a durable turn of the platform's design needs, with
// no platform code between them. Recall and (run recorded, then history) at once; the model; the
// tool over NATS on another process; the model again; the steps journaled; the turn appended to
// memory; the run finished. Every write is its own commit, as in the platform. With the duties on,
// the turn also holds the conversation's lease (its fencing token in the run's row), runs in a
// traced span, publishes its events and hands the finished turn to memory's learning.
import { randomUUID } from 'node:crypto';
import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { JsonClient } from '../json-client.js';
import { CALCULATOR_DESCRIPTION, CALCULATOR_INSTRUCTIONS as INSTRUCTIONS, SIM_MODEL as MODEL } from '../calculator.js';
import { JsonGrpcClient, serveJsonGrpc } from './json-grpc.js';
import { FinishedTurns } from './duty-ingestion.js';
import { ConversationLeases } from './duty-lease.js';
import { announceReady, DUTIES, exitOnTerm, required, TOOL_SUBJECT } from './role-env.js';
import { inSpan, tracedHeaders } from './trace-context.js';

interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'calculator',
      description: CALCULATOR_DESCRIPTION,
      parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
    },
  },
];

const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 20 });
const memory = new JsonGrpcClient(required('MEMORY_ADDRESS'));
const nc = await connect({ servers: required('NATS_URL'), name: 'skeleton-orchestrator' });
const model = new JsonClient();
const modelUrl = required('MODEL_BASE_URL');
const authorization = `Bearer ${required('MODEL_API_KEY')}`;

const EVENTS_STREAM = 'SKELETON_RUN_EVENTS';
const EVENTS_SUBJECT_PREFIX = 'skeleton.run-events';
const leases = DUTIES.has('lease')
  ? new ConversationLeases(required('REDIS_URL'), `skeleton-orchestrator-${process.pid}`)
  : undefined;
const finishedTurns = DUTIES.has('learning') ? new FinishedTurns(nc, DUTIES.has('tracing')) : undefined;
const traced = DUTIES.has('tracing');
if (DUTIES.has('events')) {
  // The run's events are kept for replay (file storage), as the platform's are.
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({
    name: EVENTS_STREAM,
    subjects: [`${EVENTS_SUBJECT_PREFIX}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 3_600 * 1e9,
  });
}

async function chat(messages: ChatMessage[]): Promise<ChatMessage> {
  const response = await model.post(
    `${modelUrl}/chat/completions`,
    { authorization },
    { model: MODEL, messages, tools: TOOLS },
  );
  if (response.status !== 200) throw new Error(`chat: HTTP ${response.status}`);
  const message = (response.body as { choices?: Array<{ message: ChatMessage }> }).choices?.[0]?.message;
  if (!message) throw new Error('chat: no message');
  return message;
}

interface TurnRequest {
  tenant: string;
  conversation: string;
  content: string;
}

async function turn(request: unknown): Promise<{ response: string }> {
  const asked = request as TurnRequest;
  const run = async (): Promise<{ response: string }> => {
    const lease = await leases?.acquire(asked.tenant, asked.conversation);
    if (leases && !lease) throw new Error(`conversation ${asked.conversation} is busy`);
    try {
      const runId = randomUUID();
      const { response, messages } = await steps(asked, runId, lease?.token ?? null);
      if (DUTIES.has('events')) {
        const events = JSON.stringify(messages.map((message, seq) => ({ seq, type: 'message', message })));
        nc.publish(
          `${EVENTS_SUBJECT_PREFIX}.${asked.tenant}.${runId}`,
          events,
          traced ? { headers: tracedHeaders() } : {},
        );
      }
      finishedTurns?.hand({ tenant: asked.tenant, runId, messages });
      return { response };
    } finally {
      await lease?.release();
    }
  };
  return traced ? inSpan('turn', run) : run();
}

async function steps(
  { tenant, conversation, content }: TurnRequest,
  runId: string,
  fence: number | null,
): Promise<{ response: string; messages: ChatMessage[] }> {
  const recalled = memory.call<{ facts: string[] }>('Recall', { tenant, query: content });
  const history = (async () => {
    await pool.query(
      `INSERT INTO skeleton.runs (run_id, tenant, conversation, status, input, fence) VALUES ($1, $2, $3, 'running', $4, $5)`,
      [runId, tenant, conversation, content, fence],
    );
    return memory.call<{ messages: ChatMessage[] }>('History', { tenant, conversation });
  })();
  const [{ facts }, { messages: earlier }] = await Promise.all([recalled, history]);
  const asked: ChatMessage[] = [
    { role: 'system', content: [INSTRUCTIONS, ...facts].join('\n') },
    ...earlier,
    { role: 'user', content },
  ];
  const first = await chat(asked);
  const call = first.tool_calls?.[0];
  if (!call) throw new Error('the model asked for no tool');
  const reply = (
    await nc.request(TOOL_SUBJECT, call.function.arguments, {
      timeout: 30_000,
      ...(traced ? { headers: tracedHeaders() } : {}),
    })
  ).json<{ ok: boolean; output?: unknown; error?: string }>();
  if (!reply.ok) throw new Error(`calculator: ${reply.error}`);
  const toolMessage: ChatMessage = { role: 'tool', tool_call_id: call.id, content: JSON.stringify(reply.output) };
  const answer = await chat([...asked, first, toolMessage]);
  await pool.query('UPDATE skeleton.runs SET journal = $2 WHERE run_id = $1', [
    runId,
    JSON.stringify([first, toolMessage, answer]),
  ]);
  const messages: ChatMessage[] = [{ role: 'user', content }, first, toolMessage, answer];
  await memory.call('Append', { tenant, conversation, messages });
  await pool.query(`UPDATE skeleton.runs SET status = 'done', result = $2, finished_at = now() WHERE run_id = $1`, [
    runId,
    answer.content,
  ]);
  return { response: answer.content ?? '', messages };
}

const { server, port } = await serveJsonGrpc({
  Turn: async (request) => ({ response: (await turn(request)).response }),
});
announceReady(port);
exitOnTerm(async () => {
  server.forceShutdown();
  memory.close();
  model.close();
  await leases?.close();
  await nc.close();
  await pool.end();
});
