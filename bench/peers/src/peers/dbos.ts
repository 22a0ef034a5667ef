// DBOS (@dbos-inc/dbos-sdk): the calculator turn as a DBOS workflow whose model calls and tool call
// are steps (`DBOS.runStep`), the system database on the bench's PostgreSQL. DBOS records the
// workflow's start and every step's result there, each committed before the workflow goes on, so a
// crashed turn resumes from its last completed step. The loop over the model is the OpenAI SDK
// (durable/calculator-steps.ts); DBOS is one per process (a static singleton), as its users run it.
import { DBOS } from '@dbos-inc/dbos-sdk';
import { randomUUID } from 'node:crypto';
import { CallLog, verifyTurn } from '../calculator-turn.js';
import { CalculatorSteps, STEPS_PER_TURN } from '../durable/calculator-steps.js';
import { queryRows, type DurableStore } from '../durable/durable-store.js';
import { ownCpuMs, type ModelEndpoint, type Peer } from '../peer.js';

const WORKFLOW = 'calculatorTurn';
/** The pool the platform's services get in the bench (BENCH_PLATFORM_ENV's DATABASE_POOL_MAX; DBOS's default is 10). */
const POOL_MAX = 20;

export function dbosPeer(endpoint: ModelEndpoint, store: DurableStore): Peer {
  const steps = new CalculatorSteps(endpoint);
  let url: string | undefined;
  let turnWorkflow: ((turnId: string) => Promise<string>) | undefined;
  let turns = 0;
  return {
    key: 'dbos',
    name: `DBOS (durable: workflow and steps in PostgreSQL ${store.durability})`,
    async prepare() {
      url = await store.createDatabase('peer_dbos');
      DBOS.setConfig({
        name: 'bench-peers',
        systemDatabaseUrl: url,
        systemDatabasePoolSize: POOL_MAX,
        logLevel: 'warn',
      });
      turnWorkflow = DBOS.registerWorkflow(
        async (turnId: string) => steps.run(turnId, (name, fn) => DBOS.runStep(fn, { name })),
        { name: WORKFLOW },
      );
      await DBOS.launch();
    },
    async turn() {
      if (!turnWorkflow) throw new Error('dbos was not prepared');
      const turnId = randomUUID();
      const log = new CallLog();
      steps.logs.set(turnId, log);
      try {
        const answer = await turnWorkflow(turnId);
        verifyTurn(this.name, log, answer);
        turns += 1;
      } finally {
        steps.logs.delete(turnId);
      }
    },
    async cpuMs() {
      return new Map([...ownCpuMs(), ['postgres', await store.postgresCpuMs()]]);
    },
    async persisted() {
      const [row] = await queryRows<{ workflows: string; complete: string; steps: string }>(
        url!,
        `SELECT count(*) AS workflows, count(*) FILTER (WHERE status = 'SUCCESS' AND n = $2) AS complete,
                coalesce(sum(n), 0) AS steps
           FROM (SELECT w.workflow_uuid, w.status, count(o.function_id) AS n
                   FROM dbos.workflow_status w LEFT JOIN dbos.operation_outputs o ON o.workflow_uuid = w.workflow_uuid
                  WHERE w.name = $1 GROUP BY w.workflow_uuid, w.status) AS per_workflow`,
        [WORKFLOW, STEPS_PER_TURN],
      );
      const recorded = Number(row!.steps);
      return {
        turns,
        stored: Number(row!.complete),
        detail: `PostgreSQL (database peer_dbos, schema dbos): ${row!.workflows} workflows in workflow_status, ${recorded} step results in operation_outputs (${(recorded / Math.max(1, turns)).toFixed(1)} per turn), ${row!.complete} workflows SUCCESS with all ${STEPS_PER_TURN} steps`,
      };
    },
    async stop() {
      await DBOS.shutdown();
    },
  };
}
