// The skeleton's memory service: recall (an embeddings request to the model provider, then one
// query), the conversation's history (one query) and the turn's append (one durable commit), each
// a unary gRPC call, with the statements against its own tables in PostgreSQL. With the duties on,
// it also learns from the finished turns the orchestrator hands it (duty-ingestion.ts).
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { JsonClient } from '../json-client.js';
import { ensureIngestStream, learnFromFinishedTurns } from './duty-ingestion.js';
import { serveJsonGrpc } from './json-grpc.js';
import { announceReady, DUTIES, exitOnTerm, required } from './role-env.js';

const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 20 });
const model = new JsonClient();
const modelUrl = required('MODEL_BASE_URL');
const authorization = `Bearer ${required('MODEL_API_KEY')}`;

const { server, port } = await serveJsonGrpc({
  async Recall(request) {
    const { tenant, query } = request as { tenant: string; query: string };
    const embedded = await model.post(
      `${modelUrl}/embeddings`,
      { authorization },
      { model: 'sim-embed-1', input: [query] },
    );
    if (embedded.status !== 200) throw new Error(`embeddings: HTTP ${embedded.status}`);
    const { rows } = await pool.query('SELECT fact FROM skeleton.facts WHERE tenant = $1 ORDER BY fact LIMIT 8', [
      tenant,
    ]);
    return { facts: rows.map((r: { fact: string }) => r.fact) };
  },
  async History(request) {
    const { tenant, conversation } = request as { tenant: string; conversation: string };
    const { rows } = await pool.query(
      'SELECT message FROM skeleton.messages WHERE tenant = $1 AND conversation = $2 ORDER BY seq DESC LIMIT 200',
      [tenant, conversation],
    );
    return { messages: rows.map((r: { message: unknown }) => r.message).reverse() };
  },
  async Append(request) {
    const { tenant, conversation, messages } = request as { tenant: string; conversation: string; messages: unknown[] };
    await pool.query(
      'INSERT INTO skeleton.messages (tenant, conversation, message) SELECT $1, $2, m FROM unnest($3::jsonb[]) AS m',
      [tenant, conversation, messages.map((m) => JSON.stringify(m))],
    );
    return {};
  },
});
const nc = DUTIES.has('learning')
  ? await connect({ servers: required('NATS_URL'), name: 'skeleton-memory' })
  : undefined;
if (nc) await ensureIngestStream(nc);
const stopLearning = nc
  ? await learnFromFinishedTurns(nc, pool, required('VECTOR_SCHEMA'), modelUrl, authorization, DUTIES.has('tracing'))
  : undefined;
announceReady(port);
exitOnTerm(async () => {
  server.forceShutdown();
  await stopLearning?.();
  await nc?.close();
  model.close();
  await pool.end();
});
