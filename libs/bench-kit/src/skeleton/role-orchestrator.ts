// The skeleton's orchestrator: the exchanges a durable turn of the platform's design needs, with
// no platform code between them. Recall and (run recorded, then history) at once; the model; the
// tool over NATS on another process; the model again; the steps journaled; the turn appended to
// memory; the run finished. Every write is its own commit, as in the platform.
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { JsonClient } from '../json-client.js';
import { CALCULATOR_DESCRIPTION, CALCULATOR_INSTRUCTIONS as INSTRUCTIONS, SIM_MODEL as MODEL } from '../calculator.js';
import { JsonGrpcClient, serveJsonGrpc } from './json-grpc.js';
import { announceReady, exitOnTerm, required, TOOL_SUBJECT } from './role-env.js';

interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

const TOOLS = [{ type: 'function', function: { name: 'calculator', description: CALCULATOR_DESCRIPTION, parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] } } }];

const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 20 });
const memory = new JsonGrpcClient(required('MEMORY_ADDRESS'));
const nc = await connect({ servers: required('NATS_URL'), name: 'skeleton-orchestrator' });
const model = new JsonClient();
const modelUrl = required('MODEL_BASE_URL');
const authorization = `Bearer ${required('MODEL_API_KEY')}`;

async function chat(messages: ChatMessage[]): Promise<ChatMessage> {
  const response = await model.post(`${modelUrl}/chat/completions`, { authorization }, { model: MODEL, messages, tools: TOOLS });
  if (response.status !== 200) throw new Error(`chat: HTTP ${response.status}`);
  const message = (response.body as { choices?: Array<{ message: ChatMessage }> }).choices?.[0]?.message;
  if (!message) throw new Error('chat: no message');
  return message;
}

async function turn(request: unknown): Promise<{ response: string }> {
  const { tenant, conversation, content } = request as { tenant: string; conversation: string; content: string };
  const runId = randomUUID();
  const recalled = memory.call<{ facts: string[] }>('Recall', { tenant, query: content });
  const history = (async () => {
    await pool.query(`INSERT INTO skeleton.runs (run_id, tenant, conversation, status, input) VALUES ($1, $2, $3, 'running', $4)`, [runId, tenant, conversation, content]);
    return memory.call<{ messages: ChatMessage[] }>('History', { tenant, conversation });
  })();
  const [{ facts }, { messages: earlier }] = await Promise.all([recalled, history]);
  const asked: ChatMessage[] = [{ role: 'system', content: [INSTRUCTIONS, ...facts].join('\n') }, ...earlier, { role: 'user', content }];
  const first = await chat(asked);
  const call = first.tool_calls?.[0];
  if (!call) throw new Error('the model asked for no tool');
  const reply = (await nc.request(TOOL_SUBJECT, call.function.arguments, { timeout: 30_000 })).json<{ ok: boolean; output?: unknown; error?: string }>();
  if (!reply.ok) throw new Error(`calculator: ${reply.error}`);
  const toolMessage: ChatMessage = { role: 'tool', tool_call_id: call.id, content: JSON.stringify(reply.output) };
  const answer = await chat([...asked, first, toolMessage]);
  await pool.query('UPDATE skeleton.runs SET journal = $2 WHERE run_id = $1', [runId, JSON.stringify([first, toolMessage, answer])]);
  await memory.call('Append', { tenant, conversation, messages: [{ role: 'user', content }, first, toolMessage, answer] });
  await pool.query(`UPDATE skeleton.runs SET status = 'done', result = $2, finished_at = now() WHERE run_id = $1`, [runId, answer.content]);
  return { response: answer.content ?? '' };
}

const { server, port } = await serveJsonGrpc({ Turn: turn });
announceReady(port);
exitOnTerm(async () => {
  server.forceShutdown();
  memory.close();
  model.close();
  await nc.close();
  await pool.end();
});
