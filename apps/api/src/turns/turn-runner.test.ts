import type { orchestratorV1 } from '@platform/proto';
import { createLogger, DEPENDENCY_UNAVAILABLE, PlatformError, type PromiseClient } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { TurnRunner } from './turn-runner.js';

type Orchestrator = PromiseClient<orchestratorV1.OrchestratorServiceClient>;
const logger = createLogger({ service: 'turn-runner-test', level: 'silent' });
const request = { tenantId: 't', conversationId: 'c', content: 'hi' } as Parameters<TurnRunner['run']>[0];
const answer = { runId: 'run_1', status: 'completed' } as orchestratorV1.HandleMessageResponse;
const lostDatabase = () =>
  new PlatformError('unavailable', DEPENDENCY_UNAVAILABLE, 'database unreachable', { retryAfterSeconds: 1 });

/** An orchestrator port that fails the first `failures` calls with `error`, then answers; it records each call's attach flag. */
function orchestratorFailing(failures: number, error: () => Error): { client: Orchestrator; attaches: boolean[] } {
  const attaches: boolean[] = [];
  const client = {
    handleMessage: async (req: orchestratorV1.HandleMessageRequest) => {
      attaches.push(req.attach);
      if (attaches.length <= failures) throw error();
      return answer;
    },
  } as unknown as Orchestrator;
  return { client, attaches };
}

describe('TurnRunner', () => {
  it('sends the turn again under the same run id (attaching) when the orchestrator lost its database', async () => {
    const { client, attaches } = orchestratorFailing(2, lostDatabase);
    const result = await new TurnRunner(client, logger).run(request, 'run_1', Date.now() + 30_000);
    expect(result).toBe(answer);
    expect(attaches).toEqual([false, true, true]);
  });

  it('gives up at the deadline with the typed, retryable error', async () => {
    const { client } = orchestratorFailing(1_000, lostDatabase);
    const error = await new TurnRunner(client, logger).run(request, 'run_1', Date.now() + 250).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unavailable', code: DEPENDENCY_UNAVAILABLE, retryAfterSeconds: 1 });
  });

  it('does not send again on an answer such as a refusal', async () => {
    const { client, attaches } = orchestratorFailing(
      1,
      () => new PlatformError('unavailable', 'OVERLOADED', 'busy', { retryAfterSeconds: 1 }),
    );
    await expect(new TurnRunner(client, logger).run(request, 'run_1', Date.now() + 30_000)).rejects.toMatchObject({
      code: 'OVERLOADED',
    });
    expect(attaches).toEqual([false]);
  });
});
