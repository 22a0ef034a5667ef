// A turn's answer does not wait for the NATS server to confirm it read the run's events: with
// the server frozen (SIGSTOP, as a stalled or overloaded server would be) a turn that needs no
// tool still answers while the orchestrator's connection is up (when the answer waited for the
// server's receipt, it came only once the client gave the frozen server up, after its pings went
// unanswered for 20-30 s), and its events, handed to the connection before the answer, reach the
// stream once the server runs again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, runEventsOf, watchRun } from './sse.js';
import { api, bootPlatform, type SuitePlatform } from './support.js';

const TENANT = 'events-path';

interface TurnBody {
  runId: string;
  status: string;
  response: string;
}

let platform: SuitePlatform;
/** How often the orchestrator's NATS connection was declared lost (its log says `nats disconnect`). */
let orchestratorDisconnects = 0;

beforeAll(async () => {
  platform = await bootPlatform('events-off-path', {
    env: { orchestrator: { RATE_LIMIT_TURNS_PER_MINUTE: '0' } },
    onLine: (app, line) => {
      if (app === 'orchestrator' && line.includes('"nats":"disconnect"')) orchestratorDisconnects += 1;
    },
  });
});
afterAll(async () => {
  await platform?.stop();
});

describe('the answer and the run events', () => {
  it('answers while the NATS server is frozen, and the events arrive once it runs again', async () => {
    // Warm: every connection is up and the catalog is loaded.
    const warm = await api<TurnBody>(platform, 'POST', '/v1/conversations/warm/messages', TENANT, {
      content: '[scenario:plain] hello',
    });
    expect(warm.status).toBe(200);

    const pid = platform.nats.pid!;
    process.kill(pid, 'SIGSTOP');
    let turn: Awaited<ReturnType<typeof api<TurnBody>>>;
    let disconnectsByTheAnswer: number;
    try {
      // Bounded, so the server is let go even when the answer never comes (the failure this guards against).
      turn = await api<TurnBody>(
        platform,
        'POST',
        '/v1/conversations/frozen/messages',
        TENANT,
        { content: '[scenario:plain] hello again' },
        AbortSignal.timeout(30_000),
      );
      disconnectsByTheAnswer = orchestratorDisconnects;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(turn.status).toBe(200);
    // Answered while the connection to the frozen server was still up: nothing waited for it.
    expect(disconnectsByTheAnswer).toBe(0);
    expect(turn.body.status).toBe('completed');
    expect(turn.body.response).not.toBe('');

    const events = runEventsOf(await readSse(await watchRun(platform, TENANT, turn.body.runId)));
    expect(events.at(-1)?.type).toBe('execution_end');
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect((events.at(-1)!.data['result'] as { response: string }).response).toBe(turn.body.response);
  });
});
