import {
  DEFAULT_LOOP_CONFIG,
  ResponseFormatRejectedError,
  type ModelPort,
  type ModelRequest,
} from '@platform/agent-loop';
import { createLogger } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import type { ClaimedRun, RunRecord } from '../../journal/run-records.js';
import type { RunnableAgent } from '../../profiles.js';
import { claimedRun, finishedChild } from '../../test-support/run-fixtures.js';
import type { ChildRuns, ChildTask } from '../child-runs.js';
import { PlanExecutor } from './plan-execute.js';
import type { PlanView } from './plan-view.js';
import type { PlanRunContext } from './plan-run.js';
import { answerVerdict } from '../../structured/answer-verdict.js';
import { OutputSchemas } from '../../structured/output-schemas.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A model that answers the planner's requests in order, recording what it was asked. */
function scriptedModel(replies: Array<string | Error>): ModelPort & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    provider: 'test',
    model: 'planner',
    requests,
    complete: (request) => {
      requests.push({ ...request, messages: [...request.messages] });
      const content = replies[requests.length - 1] ?? 'out of script';
      if (content instanceof Error) return Promise.reject(content);
      return Promise.resolve({ message: { role: 'assistant', content }, usage, finishReason: 'stop' });
    },
  };
}

const run: ClaimedRun = claimedRun('planner', 'plan my week');

function record(task: ChildTask, status: RunRecord['status'], response: string): RunRecord {
  return finishedChild(
    {
      runId: `child-${task.callId}`,
      conversationId: `delegation:${task.callId}`,
      profile: task.role,
      content: task.task,
    },
    status,
    response,
  );
}

function setup(
  replies: Array<string | Error>,
  answer: (task: ChildTask) => { status: RunRecord['status']; response: string },
  journal = new Map<string, unknown>(),
  structuredOutput = true,
) {
  const model = scriptedModel(replies);
  const tasks: ChildTask[] = [];
  const views: PlanView[] = [];
  const children = {
    run: (task: ChildTask, _signal: AbortSignal, events: (type: string, data: Record<string, unknown>) => void) => {
      tasks.push(task);
      events('child_run_started', { childRunId: `child-${task.callId}` });
      const { status, response } = answer(task);
      return Promise.resolve(record(task, status, response));
    },
  } as unknown as ChildRuns;
  const executor = new PlanExecutor({
    children,
    journal: {
      load: (_r, key) => Promise.resolve(journal.get(key)),
      save: (_r, key, value) => Promise.resolve(void journal.set(key, value)),
    },
    recordPlan: (_r, view) => Promise.resolve(void views.push(view)),
    defaultSubtaskTimeoutMs: 60_000,
    toolsOfRoles: () => Promise.resolve((_role: string, tool: string) => tool !== 'send_email'),
    logger,
  });
  const profile = {
    name: 'planner',
    systemPrompt: 'Plan.',
    model,
    fallbackModels: [],
    delegates: [{ role: 'worker', description: 'works' }],
    strategy: 'plan-and-execute',
    loopConfig: DEFAULT_LOOP_CONFIG,
    structuredOutput,
  } as unknown as RunnableAgent;
  const planning = { executor: 'worker', maxSubtasks: 3, maxReplans: 2, maxSubtaskFailures: 2, parallelism: 4 };
  const go = (r: ClaimedRun = run, answer: Pick<PlanRunContext, 'answerCheck' | 'answerInstruction'> = {}) =>
    executor.run({
      run: r,
      profile,
      planning,
      signal: new AbortController().signal,
      events: () => undefined,
      handingOver: () => false,
      ...answer,
    });
  return { go, model, tasks, views, journal };
}

const planOf = (subtasks: Array<Record<string, unknown>>) =>
  JSON.stringify({ subtasks: subtasks.map((s) => ({ expectedOutput: 'x', dependencies: [], ...s })) });

const CITY = new OutputSchemas().compile({
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
});
const cityCheck = {
  answerCheck: (context: { content: string; refused: number }) => answerVerdict(CITY, 1, context),
  answerInstruction: 'Answer with JSON {"city": …}.',
};

describe('plan executor: an output schema', () => {
  const plan = planOf([{ id: 'a', description: 'find the city' }]);
  const worker = () => ({ status: 'completed' as const, response: 'Berlin' });

  it('asks the synthesis for the schema, asks again with the errors, and answers with output', async () => {
    const { go, model } = setup([plan, 'It is Berlin.', '{"city": "Berlin"}'], worker);
    const result = await go(run, cityCheck);
    expect(result).toMatchObject({ stopReason: 'final_answer', output: { city: 'Berlin' } });
    expect(String(model.requests[1]!.messages.at(-1)!.content)).toContain('Answer with JSON {"city": …}.');
    expect(String(model.requests[2]!.messages.at(-1)!.content)).toContain('not valid against the JSON Schema');
  });

  it('ends with invalid_output and the issues when the answer is invalid twice', async () => {
    const { go } = setup([plan, 'It is Berlin.', '{"town": "Berlin"}'], worker);
    const result = await go(run, cityCheck);
    expect(result.stopReason).toBe('invalid_output');
    expect(result.error).toMatchObject({ kind: 'invalid_output', issues: [expect.objectContaining({})] });
    expect(result.output).toBeUndefined();
  });
});

describe('plan executor', () => {
  it('passes results through the shared context and synthesises the answer from it', async () => {
    const { go, tasks, model } = setup(
      [
        planOf([
          { id: 'a', description: 'find facts' },
          { id: 'b', description: 'write about {a}', dependencies: ['a'], outputKey: 'essay' },
        ]),
        'Final: done',
      ],
      (task) => ({ status: 'completed', response: task.callId.includes('-a-') ? 'blue sky' : 'an essay' }),
    );
    const result = await go();
    expect(result).toMatchObject({ stopReason: 'final_answer', response: 'Final: done' });
    expect(tasks.map((t) => t.callId)).toEqual(['plan0-a-1', 'plan0-b-1']);
    expect(tasks[1]!.task).toContain('write about blue sky');
    expect(tasks[1]!.task).toContain('- a: blue sky');
    const synthesis = model.requests.at(-1)!.messages.at(-1)!;
    expect(synthesis.content).toContain('- a: blue sky\n- essay: an essay');
    expect(result.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ['subtask:a', 'success'],
      ['subtask:b', 'success'],
    ]);
  });

  it('catches over-decomposition and a reply that is no plan, feeding the problem back to the planner', async () => {
    const tooMany = planOf([
      { id: 'a', description: 'a' },
      { id: 'b', description: 'b' },
      { id: 'c', description: 'c' },
      { id: 'd', description: 'd' },
    ]);
    const { go, model, views } = setup(
      [tooMany, 'no plan, sorry', planOf([{ id: 'a', description: 'all of it' }]), 'Done'],
      () => ({ status: 'completed', response: 'ok' }),
    );
    const result = await go();
    expect(result.stopReason).toBe('final_answer');
    const plan = views.at(-1)!;
    expect(plan.failures.map((f) => [f.class, f.kind, f.recovery])).toEqual([
      ['planning', 'over_decomposition', 'replan'],
      ['planning', 'format_violation', 'replan'],
    ]);
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('more than 3: merge subtasks');
  });

  it('runs a subtask that names a tool as a child held to that tool, and replans one naming a tool its role may not use', async () => {
    const { go, tasks, views, model } = setup(
      [
        planOf([{ id: 'mail', description: 'tell Bob', tool: 'send_email' }]),
        planOf([
          { id: 'sum', description: 'add', tool: 'calculator', arguments: { expression: '2+2' } },
          { id: 'free', description: 'think' },
        ]),
        'Done',
      ],
      () => ({ status: 'completed', response: 'ok' }),
    );
    expect((await go()).stopReason).toBe('final_answer');
    expect(views.at(-1)!.failures[0]).toMatchObject({
      class: 'planning',
      kind: 'tool_not_allowed',
      recovery: 'replan',
    });
    expect(model.requests[1]!.messages.at(-1)!.content).toContain(
      "names the tool 'send_email', which the role 'worker' may not use",
    );
    expect(tasks.map((t) => [t.callId, t.tools])).toEqual([
      ['plan1-sum-1', ['calculator']],
      ['plan1-free-1', undefined],
    ]);
    expect(tasks[0]!.task).toContain('Use the tool \'calculator\' with these arguments: {"expression":"2+2"}');
  });

  it('detects a missing input ({key} no subtask wrote) and replans instead of running the subtask', async () => {
    const { go, tasks, views } = setup(
      [planOf([{ id: 'a', description: 'use {nowhere}' }]), planOf([{ id: 'a', description: 'plain' }]), 'Done'],
      () => ({ status: 'completed', response: 'ok' }),
    );
    expect((await go()).stopReason).toBe('final_answer');
    expect(tasks.map((t) => t.callId)).toEqual(['plan1-a-1']);
    expect(views.at(-1)!.failures[0]).toMatchObject({ class: 'planning', kind: 'context_loss', subtaskId: 'a' });
  });

  it('lets the siblings of a failed critical subtask finish before replanning, and fails gracefully past the replans', async () => {
    const { go, tasks, views } = setup(
      [
        planOf([
          { id: 'bad', description: 'x', critical: true },
          { id: 'good', description: 'y' },
        ]),
        planOf([{ id: 'bad', description: 'x', critical: true }]),
        planOf([{ id: 'bad', description: 'x', critical: true }]),
      ],
      (task) =>
        task.callId.includes('-bad-')
          ? { status: 'failed', response: 'boom' }
          : { status: 'completed', response: 'fine' },
    );
    const result = await go();
    expect(result).toMatchObject({ stopReason: 'plan_failed', error: { kind: 'plan_failed' } });
    expect(result.response).toContain('please try a simpler goal');
    expect(tasks.map((t) => t.callId)).toEqual(['plan0-bad-1', 'plan0-good-1', 'plan1-bad-1', 'plan2-bad-1']);
    const plan = views.at(-1)!;
    expect(plan.subtasks.find((s) => s.id === 'bad')!.status).toBe('failed');
    expect(plan.failures.map((f) => f.recovery)).toEqual(['replan', 'replan', 'escalate']);
  });

  it('on a resumed attempt reads the journaled planner replies instead of asking the model again', async () => {
    const first = setup([planOf([{ id: 'a', description: 'x' }]), 'Done'], () => ({
      status: 'completed',
      response: 'ok',
    }));
    await first.go();
    const again = setup([], () => ({ status: 'completed', response: 'ok' }), first.journal);
    const result = await again.go({ ...run, attempts: 2 });
    expect(result).toMatchObject({ stopReason: 'final_answer', response: 'Done' });
    expect(again.model.requests).toEqual([]);
    expect(again.tasks.map((t) => t.callId)).toEqual(['plan0-a-1']); // the same child ids: finished ones are found, not re-run
  });

  it('reads a planner reply journaled as text only (before transcript entries were) without asking again', async () => {
    const journal = new Map<string, unknown>([
      ['plan-reply:0', { text: planOf([{ id: 'a', description: 'x' }]) }],
      ['plan-answer', { text: 'Done' }],
    ]);
    const again = setup([], () => ({ status: 'completed', response: 'ok' }), journal);
    const result = await again.go({ ...run, attempts: 2 });
    expect(result).toMatchObject({ stopReason: 'final_answer', response: 'Done' });
    expect(again.model.requests).toEqual([]);
    expect(result.transcript[0]).toMatchObject({
      plan: { call: 'planner', planVersion: 0 },
      output: { content: expect.stringContaining('"subtasks"') },
    });
  });

  it('asks for the plan with structured output and keeps a transcript linking each subtask to its child runs', async () => {
    const { go, model } = setup(
      [
        planOf([
          { id: 'a', description: 'x' },
          { id: 'b', description: 'y', dependencies: ['a'], outputKey: 'out' },
        ]),
        'Done',
      ],
      () => ({ status: 'completed', response: 'ok' }),
    );
    const result = await go();
    expect(model.requests[0]!.responseFormat).toMatchObject({ type: 'json_schema', name: 'plan', strict: false });
    expect(model.requests[1]!.responseFormat).toBeUndefined(); // the synthesis answers in prose
    expect(result.transcript).toEqual([
      expect.objectContaining({
        plan: { call: 'planner', planVersion: 0, outputMode: 'json_schema' },
        model: expect.objectContaining({ model: 'planner' }),
        view: expect.objectContaining({ stage: 'full' }),
      }),
      {
        step: 'subtask',
        planVersion: 0,
        subtaskId: 'a',
        role: 'worker',
        status: 'completed',
        attempts: 1,
        childRunIds: ['child-plan0-a-1'],
        resultKey: 'a',
      },
      {
        step: 'subtask',
        planVersion: 0,
        subtaskId: 'b',
        role: 'worker',
        status: 'completed',
        attempts: 1,
        childRunIds: ['child-plan0-b-1'],
        resultKey: 'out',
      },
      expect.objectContaining({ plan: { call: 'synthesis', planVersion: 0 } }),
    ]);
  });

  it('asks in text when the profile has no structured output, or when the provider refuses it (logged), and records replans', async () => {
    const plain = setup(
      [planOf([{ id: 'a', description: 'x' }]), 'Done'],
      () => ({ status: 'completed', response: 'ok' }),
      new Map(),
      false,
    );
    const result = await plain.go();
    expect(plain.model.requests[0]!.responseFormat).toBeUndefined();
    expect(result.transcript[0]).toMatchObject({ plan: { outputMode: 'text' } });

    const refused = new ResponseFormatRejectedError(
      "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
    );
    const fallback = setup([refused, 'no plan', planOf([{ id: 'a', description: 'x' }]), 'Done'], () => ({
      status: 'completed',
      response: 'ok',
    }));
    const second = await fallback.go();
    expect(second.stopReason).toBe('final_answer');
    expect(fallback.model.requests.map((r) => r.responseFormat?.name ?? null)).toEqual(['plan', null, 'plan', null]);
    expect(
      second.transcript.map((e) => ('step' in e ? e.step : `${e.plan?.call}:${e.plan?.outputMode ?? ''}`)),
    ).toEqual(['planner:text_fallback', 'replan', 'planner:json_schema', 'subtask', 'synthesis:']);
    expect(second.transcript[1]).toMatchObject({ step: 'replan', planVersion: 0, failureKind: 'format_violation' });
  });
});
