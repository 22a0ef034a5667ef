// Chaos: one fault at a time, injected while 8 clients send turns, then the books are checked.
// Every turn answered 200 is in its conversation's history exactly once with its answer; every
// other turn got a typed 429/503 with retry-after, and none hung; no side effect ran twice; no
// run is left queued or running; and the platform serves again with no restart by hand.
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooks } from './books.js';
import { API_TURN_WAIT_MS, startChaosPlatform, waitForTools, type ChaosPlatform } from './chaos-platform.js';
import { startLoad, type TurnRecord } from './load.js';

const CLIENTS = 8;
/** Turns answered before the fault (the load is running) and after it is healed (recovered). */
const ANSWERED_BEFORE = 8;
const ANSWERED_AFTER = 8;
const RECOVERY_TIMEOUT_MS = 90_000;
/** Longer than the api's own wait, so a turn the platform forgot shows as hung, not as an api timeout. */
const CLIENT_DEADLINE_MS = API_TURN_WAIT_MS + 15_000;

let chaos: ChaosPlatform;
const lines: string[] = [];

beforeAll(async () => {
  chaos = await startChaosPlatform((line) => {
    lines.push(line);
    if (lines.length > 400) lines.shift();
    if (process.env['CHAOS_SERVICE_LOGS'] === '1') process.stderr.write(`${line}\n`);
  });
  await waitForTools(chaos, ['record_effect', 'calculator']);
});
afterAll(async () => {
  await chaos?.stop();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function summary(records: readonly TurnRecord[]): string {
  const byOutcome = new Map<string, number>();
  for (const r of records) {
    const key =
      r.status === 200
        ? `200 ${r.body?.status ?? ''}${r.body?.status === 'failed' ? ` (${r.body.stopReason})` : ''}`
        : r.status
          ? `${r.status} ${r.body?.error?.code ?? ''}`
          : r.hung
            ? 'hung'
            : `no answer (${r.failure})`;
    byOutcome.set(key, (byOutcome.get(key) ?? 0) + 1);
  }
  const failures = [
    ...new Set(records.filter((r) => r.body?.status === 'failed').map((r) => (r.body?.response ?? '').slice(0, 160))),
  ];
  return (
    [...byOutcome].map(([k, n]) => `${k}: ${n}`).join(', ') +
    (failures.length ? `; failures said: ${failures.join(' | ')}` : '')
  );
}

interface Fault {
  /** Breaks something; resolves once it is broken. */
  inject(): Promise<void>;
  /** How long it stays broken while the load goes on. */
  holdMs: number;
  /** Puts things back as an operator's automation would (never a restart of a healthy service). */
  heal(): Promise<void>;
}

/** Runs the load, injects the fault once turns flow, heals it, waits for recovery, checks the books. */
async function underLoad(label: string, fault: Fault): Promise<void> {
  const load = startLoad({
    apiUrl: chaos.platform.apiUrl,
    token: chaos.token,
    label,
    clients: CLIENTS,
    deadlineMs: CLIENT_DEADLINE_MS,
  });
  try {
    await load.untilAnswered(ANSWERED_BEFORE, 0, RECOVERY_TIMEOUT_MS);
    await fault.inject();
    await sleep(fault.holdMs);
    await fault.heal();
    await load.untilAnswered(ANSWERED_AFTER, performance.now(), RECOVERY_TIMEOUT_MS);
  } finally {
    await load.stop();
  }
  const problems = await checkBooks(chaos, label, load.records);
  process.stderr.write(
    `chaos ${label}: ${load.records.length} turns (${summary(load.records)}); ${problems.length} problems\n`,
  );
  if (problems.length > 0)
    process.stderr.write(`${problems.slice(0, 20).join('\n')}\n--- service logs ---\n${lines.slice(-60).join('\n')}\n`);
  expect(problems).toEqual([]);
}

/** A service crash (SIGKILL), and its replacement started a moment later (as a supervisor would). */
function crash(kill: () => Promise<void>, start: () => Promise<unknown>): Fault {
  return { inject: kill, holdMs: 2_000, heal: async () => void (await start()) };
}

describe('the books balance under load when', () => {
  it('one of two orchestrator replicas is killed (SIGKILL)', async () => {
    await underLoad(
      'kill-orchestrator',
      crash(
        () => chaos.platform.kill('orchestrator', 1),
        () => chaos.platform.start('orchestrator', 1),
      ),
    );
  });

  it('the tool runner is killed (SIGKILL)', async () => {
    await underLoad(
      'kill-runner',
      crash(
        () => chaos.killRunner(),
        () => chaos.startRunner(),
      ),
    );
  });

  it('memory is killed (SIGKILL)', async () => {
    await underLoad(
      'kill-memory',
      crash(
        () => chaos.platform.kill('memory'),
        () => chaos.platform.start('memory'),
      ),
    );
  });

  it('the agent pool is killed (SIGKILL)', async () => {
    await underLoad(
      'kill-agent-pool',
      crash(
        () => chaos.platform.kill('agent-pool'),
        () => chaos.platform.start('agent-pool'),
      ),
    );
  });

  it('the model answers 500s for a while', async () => {
    await underLoad('model-500', modelWindow({ kind: 'server_error', durationMs: 4_000 }));
  });

  it('the model answers 429 with retry-after for a while', async () => {
    await underLoad('model-429', modelWindow({ kind: 'rate_limit', durationMs: 4_000, retryAfterSeconds: 1 }));
  });

  it('the model hangs for a while', async () => {
    await underLoad('model-hang', modelWindow({ kind: 'hang', durationMs: 5_000 }));
  });

  it('Redis is flushed (FLUSHALL)', async () => {
    await underLoad('redis-flush', {
      inject: async () => void (await flushRedis()),
      holdMs: 1_000,
      heal: async () => undefined,
    });
  });

  it('Redis is stopped for a few seconds', async () => {
    await underLoad('redis-down', { inject: () => chaos.redis.halt(), holdMs: 3_000, heal: () => chaos.redis.start() });
  });

  it('NATS is stopped and restarted (JetStream on disk)', async () => {
    await underLoad('nats-restart', { inject: () => chaos.nats.halt(), holdMs: 3_000, heal: () => chaos.nats.start() });
  });

  it('the network to PostgreSQL is slow and drops connections', async () => {
    await underLoad('postgres-network', {
      inject: async () => {
        chaos.postgresProxy.setLatency(40);
        chaos.postgresProxy.resetConnections();
      },
      holdMs: 4_000,
      heal: async () => {
        chaos.postgresProxy.resetConnections();
        chaos.postgresProxy.setLatency(0);
      },
    });
  });

  it('PostgreSQL is stopped for 5 s and restarted', async () => {
    await underLoad('postgres-down', {
      inject: () => chaos.postgres.halt(),
      holdMs: 5_000,
      heal: () => chaos.postgres.start(),
    });
  });
});

function modelWindow(spec: {
  kind: 'server_error' | 'rate_limit' | 'hang';
  durationMs: number;
  retryAfterSeconds?: number;
}): Fault {
  return {
    inject: async () => {
      const response = await fetch(`${chaos.platform.llmSimUrl}/_sim/fault-window`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(spec),
      });
      if (!response.ok) throw new Error(`llm-sim refused the fault window: ${response.status}`);
    },
    holdMs: spec.durationMs,
    heal: async () => void (await fetch(`${chaos.platform.llmSimUrl}/_sim/fault-window`, { method: 'DELETE' })),
  };
}

async function flushRedis(): Promise<void> {
  const client = new Redis(chaos.redis.url);
  try {
    await client.flushall();
  } finally {
    client.disconnect();
  }
}
