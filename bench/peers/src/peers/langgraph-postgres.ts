// LangGraph.js durable: the same createReactAgent with @langchain/langgraph-checkpoint-postgres's
// PostgresSaver, each turn its own thread, `durability: 'sync'` (every step's checkpoint is
// committed before the next step starts: what LangGraph calls its durable mode; the default,
// `async`, writes it while the next step runs). The checkpoints go to a database of their own on
// the bench's PostgreSQL.
import { randomUUID } from 'node:crypto';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { CallLog, PROMPT, verifyTurn } from '../calculator-turn.js';
import { queryRows, type DurableStore } from '../durable/durable-store.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';
import { calculatorReactAgent } from './langgraph.js';

/** Checkpoints of one complete turn: the input (step -1), the start (0), the model's tool call (1), the tool's answer (2), the model's answer (3). */
const CHECKPOINTS_PER_TURN = 5;
/** The pool the platform's services get in the bench (BENCH_PLATFORM_ENV's DATABASE_POOL_MAX). */
const POOL_MAX = 20;

export function langGraphPostgresPeer(endpoint: ModelEndpoint, store: DurableStore): Peer {
  let url: string | undefined;
  let pool: pg.Pool | undefined;
  let agent: ReturnType<typeof calculatorReactAgent> | undefined;
  let turns = 0;
  return {
    key: 'langgraph-postgres',
    name: `LangGraph.js + PostgresSaver (durable: checkpoints in PostgreSQL ${store.durability})`,
    async prepare() {
      url = await store.createDatabase('peer_langgraph');
      pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
      const checkpointer = new PostgresSaver(pool);
      await checkpointer.setup();
      agent = calculatorReactAgent(endpoint, checkpointer);
    },
    async turn() {
      if (!agent) throw new Error('langgraph-postgres was not prepared');
      const log = new CallLog();
      const state = await agent.invoke(
        { messages: [{ role: 'user', content: PROMPT }] },
        {
          configurable: { log, thread_id: randomUUID() },
          durability: 'sync',
        },
      );
      verifyTurn(this.name, log, state.messages.at(-1)?.content);
      turns += 1;
    },
    async cpuMs() {
      return new Map([...ownCpuMs(), ['postgres', await store.postgresCpuMs()]]);
    },
    async persisted() {
      const [row] = await queryRows<{ threads: string; complete: string; checkpoints: string }>(
        url!,
        `SELECT count(*) AS threads, count(*) FILTER (WHERE n >= $1) AS complete, coalesce(sum(n), 0) AS checkpoints
           FROM (SELECT thread_id, count(*) AS n FROM checkpoints GROUP BY thread_id) AS per_thread`,
        [CHECKPOINTS_PER_TURN],
      );
      const checkpoints = Number(row!.checkpoints);
      return {
        turns,
        stored: Number(row!.complete),
        detail: `PostgreSQL (database peer_langgraph): ${row!.threads} threads, ${checkpoints} checkpoints (${(checkpoints / Math.max(1, turns)).toFixed(1)} per turn), ${row!.complete} threads with all ${CHECKPOINTS_PER_TURN} steps`,
      };
    },
    async stop() {
      await pool?.end();
    },
  };
}
