// The same kind of burst on the orchestrator executor: ORCH_TASKS every-minute tasks whose fires
// become turns through the real platform (orchestrator, agent pool, memory, llm-sim), where they
// wait for the orchestrator's admission (503 with retry-after is back-pressure, retried into the
// same run). Reports when the last fire settled (the burst drained), fire lag to the first claim,
// and checks that no fire was doubled (one fire row and one orchestrator run per task); fires that
// did not succeed are counted by status.
import { triggerV1 } from '@platform/proto';
import { createGrpcClient, MutualTlsTransport } from '@platform/service-kit';
import { percentile, startPlatform, type PostgresServerHandle } from '@platform/testing';
import pg from 'pg';

export interface DrainResult {
  tasks: number;
  /** Burst time to the last fire recorded succeeded (or the deadline). */
  drainMs: number;
  /** Scheduled time to the fire's first claim (the orchestrator executor called), p50/p99. */
  startLagP50: number;
  startLagP99: number;
  /** Scheduled time to the fire settled (the run finished), p50/p99. */
  settleP50: number;
  settleP99: number;
  /** Fires not recorded succeeded when the burst was over (failed, waiting, or missing). */
  notSucceeded: number;
  /** Fires of the burst by status (and error code), e.g. `succeeded 263, failed RUN_FAILED 37`. */
  statuses: string;
  doubled: number;
}

interface Infra {
  natsUrl: string;
  redisUrl: string;
  postgres: PostgresServerHandle;
}

const SECRET = 'bench-trigger-secret-that-is-long-enough';

export async function orchestratorDrainRound(
  infra: Infra,
  tasks: number,
  createConcurrency: number,
): Promise<DrainResult> {
  await infra.postgres.createDatabase('bench_orchestrator');
  const databaseUrl = infra.postgres.url('bench_orchestrator');
  const platform = await startPlatform({
    natsUrl: infra.natsUrl,
    databaseUrl,
    redisUrl: infra.redisUrl,
    jwtSecret: SECRET,
    commonEnv: { LOG_LEVEL: 'warn' },
    // Production admission (MAX_CONCURRENT_TURNS), minus the per-tenant turn rate limit a burst of
    // one tenant's tasks would hit on purpose.
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' }, 'llm-sim': { OTEL_SDK_DISABLED: 'true' } },
    readyTimeoutMs: 120_000,
  });
  const client = createGrpcClient(
    triggerV1.TriggerServiceClient,
    triggerV1.TriggerServiceService,
    `127.0.0.1:${platform.ports.trigger}`,
    {
      defaultDeadlineMs: 30_000,
      transport: new MutualTlsTransport(await platform.pki.issue('api')),
      server: 'trigger',
    },
  );
  const db = new pg.Client({ connectionString: databaseUrl });
  try {
    await db.connect();
    const spec = JSON.stringify({
      trigger: { type: 'schedule', cron: '* * * * *' },
      action: { instruction: '[scenario:plain] Tick' },
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: createConcurrency }, async () => {
        while (next < tasks) {
          const i = next++;
          await client.rpc.createTask({
            tenantId: `orch-${i % 20}`,
            userId: 'bench',
            specJson: spec,
            requestId: `orch-task-${i}`,
          });
        }
      }),
    );
    const burst = Math.ceil((Date.now() + 5_000) / 60_000) * 60_000;
    const deadline = burst + 10 * 60_000;
    let settled = 0;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      const { rows } = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM trigger.fires WHERE scheduled_at = $1 AND status IN ('succeeded', 'failed', 'waiting_approval')`,
        [new Date(burst)],
      );
      settled = Number(rows[0]!.n);
      if (settled >= tasks) break;
    }
    const { rows: fires } = await db.query<{
      task_id: string;
      started_ms: number;
      finished_ms: number | null;
      status: string;
      error_code: string;
      run_id: string;
    }>(
      `SELECT task_id, status, error_code, run_id, extract(epoch FROM started_at) * 1000 AS started_ms, extract(epoch FROM finished_at) * 1000 AS finished_ms
       FROM trigger.fires WHERE scheduled_at = $1`,
      [new Date(burst)],
    );
    const { rows: runs } = await db.query<{ run_id: string; n: string }>(
      `SELECT run_id, count(*) AS n FROM orchestrator.runs WHERE run_id = ANY($1::text[]) GROUP BY run_id`,
      [fires.map((f) => f.run_id).filter(Boolean)],
    );
    const succeeded = fires.filter((f) => f.status === 'succeeded');
    const startLags = fires.map((f) => Number(f.started_ms) - burst).sort((a, b) => a - b);
    const settleLags = succeeded.map((f) => Number(f.finished_ms) - burst).sort((a, b) => a - b);
    const perTask = new Map<string, number>();
    for (const f of fires) perTask.set(f.task_id, (perTask.get(f.task_id) ?? 0) + 1);
    return {
      tasks,
      drainMs: settleLags.at(-1) ?? NaN,
      startLagP50: percentile(startLags, 50),
      startLagP99: percentile(startLags, 99),
      settleP50: percentile(settleLags, 50),
      settleP99: percentile(settleLags, 99),
      notSucceeded: tasks - succeeded.length,
      statuses: [
        ...fires.reduce(
          (m, f) =>
            m.set(
              f.error_code ? `${f.status} ${f.error_code}` : f.status,
              (m.get(f.error_code ? `${f.status} ${f.error_code}` : f.status) ?? 0) + 1,
            ),
          new Map<string, number>(),
        ),
      ]
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
      doubled: [...perTask.values()].filter((n) => n > 1).length + runs.filter((r) => Number(r.n) > 1).length,
    };
  } finally {
    client.close();
    await db.end().catch(() => undefined);
    await platform.stop();
  }
}
