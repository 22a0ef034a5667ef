// Mastra durable: the same Agent with a Memory on @mastra/pg's PostgresStore, registered in a
// Mastra instance with that store as its storage. Each turn is its own thread: Mastra creates the
// thread, reads its history (empty) and stores the turn's messages (the user's, then the model's:
// the tool call with its result and the answer) in PostgreSQL, with `savePerStep` (documented as
// "save messages incrementally on step finish"; by default Mastra stores them once, when the
// generation ends). Memory's defaults otherwise (the last
// 10 messages, no semantic recall, no title generation). Its own database on the bench's
// PostgreSQL.
import { Mastra } from '@mastra/core';
import { Memory } from '@mastra/memory';
import { PostgresStore } from '@mastra/pg';
import { randomUUID } from 'node:crypto';
import { PROMPT, RESULT, verifyTurn } from '../calculator-turn.js';
import { queryRows, type DurableStore } from '../durable/durable-store.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';
import { calculatorAgent, turnContext } from './mastra.js';

/** The pool the platform's services get in the bench (BENCH_PLATFORM_ENV's DATABASE_POOL_MAX; also Mastra's default). */
const POOL_MAX = 20;

export function mastraPgPeer(endpoint: ModelEndpoint, store: DurableStore): Peer {
  let url: string | undefined;
  let storage: PostgresStore | undefined;
  let agent: ReturnType<typeof calculatorAgent> | undefined;
  let turns = 0;
  return {
    key: 'mastra-pg',
    name: `Mastra + PostgresStore (durable: threads and messages in PostgreSQL ${store.durability})`,
    async prepare() {
      url = await store.createDatabase('peer_mastra');
      storage = new PostgresStore({ id: 'bench-peers', connectionString: url, max: POOL_MAX });
      const memory = new Memory({ storage });
      const mastra = new Mastra({ storage, agents: { calculator: calculatorAgent(endpoint, memory) } });
      agent = mastra.getAgent('calculator');
      await storage.init();
    },
    async turn() {
      if (!agent) throw new Error('mastra-pg was not prepared');
      const { log, requestContext } = turnContext();
      const thread = randomUUID();
      const result = await agent.generate(PROMPT, {
        requestContext,
        maxSteps: 5,
        memory: { thread, resource: 'bench' },
        savePerStep: true,
      });
      verifyTurn(this.name, log, result.text);
      turns += 1;
    },
    async cpuMs() {
      return new Map([...ownCpuMs(), ['postgres', await store.postgresCpuMs()]]);
    },
    async persisted() {
      // A complete turn: the user's message, and the model's message holding the calculator's
      // call with its result and the answer quoting it (Mastra stores a step's parts in one message).
      const [row] = await queryRows<{ threads: string; complete: string; messages: string }>(
        url!,
        `SELECT count(*) AS threads, count(*) FILTER (WHERE users >= 1 AND answers >= 1) AS complete,
                coalesce(sum(n), 0) AS messages
           FROM (SELECT t.id, count(m.id) AS n,
                        count(m.id) FILTER (WHERE m.role = 'user') AS users,
                        count(m.id) FILTER (WHERE m.role = 'assistant' AND m.content::jsonb @> $1::jsonb
                                                           AND m.content::jsonb ->> 'content' LIKE $2) AS answers
                   FROM mastra_threads t LEFT JOIN mastra_messages m ON m.thread_id = t.id GROUP BY t.id) AS per_thread`,
        [
          JSON.stringify({
            parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolName: 'calculator' } }],
          }),
          `%= ${RESULT}%`,
        ],
      );
      const messages = Number(row!.messages);
      return {
        turns,
        stored: Number(row!.complete),
        detail: `PostgreSQL (database peer_mastra): ${row!.threads} threads in mastra_threads, ${messages} messages in mastra_messages (${(messages / Math.max(1, turns)).toFixed(1)} per turn), ${row!.complete} threads with the user's message and the answer with the calculator's result`,
      };
    },
    async stop() {
      await storage?.close();
    },
  };
}
