// Steering a plan-and-execute run (docs/conversations.md, "Steering a run that waits, or a plan"):
// the plan has no loop step of its own before it ends, so it takes no steer; the message runs as
// its own turn after the plan, and the plan's run and history are as without it.
import type { ManagedProcess } from '@platform/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postMessageStream, readSse, runEventsOf } from './sse.js';
import { PLAN_TEAM_PROFILES } from './plan-team.js';
import {
  api,
  bootPlatform,
  FAST_RECOVERY,
  simRequests,
  startRunnerProcess,
  type SuitePlatform,
  waitFor,
  waitForCatalog,
  writeProfilesFile,
} from './support.js';

const TENANT = 'steer-plan-tenant';
let platform: SuitePlatform;
let runner: ManagedProcess;
let profiles: { file: string; remove: () => Promise<void> };

beforeAll(async () => {
  profiles = await writeProfilesFile('steer-plan', PLAN_TEAM_PROFILES);
  platform = await bootPlatform('steer_plan', {
    env: { orchestrator: { AGENT_PROFILES_FILE: profiles.file, ...FAST_RECOVERY } },
  });
  runner = await startRunnerProcess(platform, 'booking-runner', 'test/e2e/src/fixtures/booking-runner.ts');
  await waitForCatalog(platform.apiUrl, ['book_slot']);
});
afterAll(async () => {
  await runner?.kill();
  await platform?.stop();
  await profiles?.remove();
});

interface Turn {
  runId: string;
  status: string;
  response: string;
  steered?: boolean;
}

it('a plan takes no steer: the message runs as its own turn after the plan ends', async () => {
  const response = await postMessageStream(platform, TENANT, 'st-plan', { content: '[scenario:plan-three] week two' });
  const planRunId = response.headers.get('x-run-id') ?? '';
  const reading = readSse(response).then(runEventsOf);
  await waitFor('the booking subtask to ask for its tool', async () =>
    (await simRequests(platform)).find((r) => r.scenario === 'slow-booking'),
  );
  const steer = await api<Turn>(platform, 'POST', '/v1/conversations/st-plan/messages', TENANT, {
    content: '[scenario:plain] also invite Ana',
    multitask: 'steer',
    agent: 'worker',
  });
  expect(steer.status).toBe(200);
  expect(steer.body.steered).toBeUndefined();
  expect(steer.body.runId).not.toBe(planRunId);
  expect(steer.body.status).toBe('completed');
  expect((await reading).at(-1)?.data['result']).toMatchObject({ stopReason: 'final_answer' });
  const page = await api<{ messages: Array<{ runId: string | null; message: { role: string; content?: string } }> }>(
    platform,
    'GET',
    '/v1/conversations/st-plan/messages',
    TENANT,
  );
  const users = page.body.messages.filter((m) => m.message.role === 'user');
  expect(users.map((m) => m.runId)).toEqual([planRunId, steer.body.runId]);
  // The plan's messages all come before the steer's turn.
  const firstOfSteer = page.body.messages.findIndex((m) => m.runId === steer.body.runId);
  expect(page.body.messages.slice(0, firstOfSteer).every((m) => m.runId === planRunId)).toBe(true);
  expect(page.body.messages.slice(firstOfSteer).every((m) => m.runId === steer.body.runId)).toBe(true);
});
