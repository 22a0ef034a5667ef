import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { RunEventEnvelope } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { contentOf } from './message-input.js';
import { outcomeOfEnd } from './run-outcomes.js';
import { TaskEventRenderer } from './task-events.js';
import { answerRunId, isTaskId, taskOfRun } from './task-ids.js';
import { endsStream, isTerminal, taskOf, taskStateOf } from './task-mapping.js';

const TASK = 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01';
const REF = { taskId: TASK, contextId: 'ctx-1' };
const AT = '2026-06-01T09:30:00.000Z';

describe('task states from run statuses', () => {
  it.each([
    ['queued', TaskState.TASK_STATE_SUBMITTED, false, false],
    ['running', TaskState.TASK_STATE_WORKING, false, false],
    ['waiting', TaskState.TASK_STATE_INPUT_REQUIRED, false, true],
    ['completed', TaskState.TASK_STATE_COMPLETED, true, true],
    ['failed', TaskState.TASK_STATE_FAILED, true, true],
    ['cancelled', TaskState.TASK_STATE_CANCELED, true, true],
  ])('a %s run is %s', (status, state, terminal, ends) => {
    expect(taskStateOf(status)).toBe(state);
    expect(isTerminal(state)).toBe(terminal);
    expect(endsStream(state)).toBe(ends);
  });

  it('reads the status of an ended run from its stop reason, as the orchestrator records it', () => {
    expect(outcomeOfEnd('r', { stopReason: 'final_answer' }, 0).status).toBe('completed');
    expect(outcomeOfEnd('r', { stopReason: 'agent_waiting' }, 0).status).toBe('waiting');
    expect(outcomeOfEnd('r', { stopReason: 'rolled_back' }, 0).status).toBe('cancelled');
    expect(outcomeOfEnd('r', { stopReason: 'invalid_output' }, 0).status).toBe('failed');
  });
});

describe('a task from its latest run', () => {
  it("holds a completed run's answer as an artifact: its text, and its structured answer as data", () => {
    const task = taskOf(REF, { runId: TASK, status: 'completed', response: '{"sum":4}', output: { sum: 4 }, at: AT });
    expect(task).toMatchObject({
      id: TASK,
      contextId: 'ctx-1',
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: AT },
      metadata: { runId: TASK },
    });
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.artifactId).toBe(`${TASK}-answer`);
    expect(task.artifacts[0]!.parts.map((p) => p.content)).toEqual([
      { $case: 'text', value: '{"sum":4}' },
      { $case: 'data', value: { sum: 4 } },
    ]);
  });

  it('says what a waiting run waits for: each prompt, and the pending agent-tools and approvals as data', () => {
    const pending = [
      { callId: 'c1', agentName: 'archive_orders', waitingFor: 'approval' as const, prompt: 'Archive 42 orders?' },
    ];
    const task = taskOf(REF, { runId: answerRunId(TASK, 1), status: 'waiting', response: 'stop', pending, at: AT });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(task.artifacts).toEqual([]);
    expect(task.status?.message).toMatchObject({ role: Role.ROLE_AGENT, taskId: TASK, contextId: 'ctx-1' });
    expect(task.status?.message?.parts.map((p) => p.content)).toEqual([
      { $case: 'text', value: 'Archive 42 orders?' },
      { $case: 'data', value: { pending } },
    ]);
    expect(task.metadata).toMatchObject({ runId: `${TASK}-c1` });
  });

  it('tells why a run failed, and has no answer', () => {
    const task = taskOf(REF, { runId: TASK, status: 'failed', stopReason: 'model_error', at: AT });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.status?.message?.parts[0]!.content).toEqual({ $case: 'text', value: 'The run failed (model_error).' });
    expect(task.artifacts).toEqual([]);
  });
});

describe('task ids', () => {
  it('names each answer of a task after it, and finds the task of every run of its chain', () => {
    expect(isTaskId(TASK)).toBe(true);
    expect(taskOfRun(TASK)).toEqual({ taskId: TASK, answer: 0 });
    expect(taskOfRun(answerRunId(TASK, 3))).toEqual({ taskId: TASK, answer: 3 });
    expect(isTaskId(answerRunId(TASK, 1))).toBe(false);
    expect(taskOfRun('run_1')).toBeUndefined();
    expect(taskOfRun(`${TASK}-c0`)).toBeUndefined();
    expect(taskOfRun(`${TASK}-c51`)).toBeUndefined();
  });
});

function textOf(part: Part | undefined): string | undefined {
  return part?.content?.$case === 'text' ? part.content.value : undefined;
}

function event(id: number, type: RunEventEnvelope['type'], data: Record<string, unknown>): RunEventEnvelope {
  return { id, runId: TASK, type, at: 0, data };
}

describe('a run streamed as a task', () => {
  it("is working from its first event, streams the final message's text as artifact chunks, and ends with its state", () => {
    const renderer = new TaskEventRenderer(REF, TASK, false);
    const events = [
      event(1, 'execution_start', {}),
      // Text before tool calls is the model thinking aloud: not part of the answer.
      event(2, 'message_chunk', { delta: 'Let me compute' }),
      event(3, 'message_end', { message: { role: 'assistant', content: 'Let me compute', toolCalls: [{ id: 'c' }] } }),
      event(4, 'message_chunk', { delta: '84' }),
      event(5, 'message_chunk', { delta: '.' }),
      event(6, 'message_end', { message: { role: 'assistant', content: '84.' } }),
      event(7, 'execution_end', { result: { stopReason: 'final_answer', response: '84.' } }),
    ];
    const out = events.flatMap((e) => renderer.responses(e));
    expect(out[0]!.payload).toMatchObject({
      $case: 'statusUpdate',
      value: { status: { state: TaskState.TASK_STATE_WORKING } },
    });
    const chunks = out.flatMap((r) => (r.payload?.$case === 'artifactUpdate' ? [r.payload.value] : []));
    expect(chunks.map((c) => [textOf(c.artifact?.parts[0]), c.append, c.lastChunk])).toEqual([
      ['84', false, false],
      ['.', true, false],
      ['', true, true],
    ]);
    expect(out.at(-1)!.payload).toMatchObject({
      $case: 'statusUpdate',
      value: { taskId: TASK, contextId: 'ctx-1', status: { state: TaskState.TASK_STATE_COMPLETED } },
    });
  });

  it('sends an answer that was not streamed whole at the end, and a waiting run ends input-required', () => {
    const whole = new TaskEventRenderer(REF, TASK, true);
    const done = whole.responses(
      event(1, 'execution_end', { result: { stopReason: 'final_answer', response: '{"a":1}', output: { a: 1 } } }),
    );
    const artifact = done.find((r) => r.payload?.$case === 'artifactUpdate')!.payload!.value;
    expect(artifact).toMatchObject({ append: false, lastChunk: true });
    const waiting = new TaskEventRenderer(REF, TASK, false).responses(
      event(1, 'execution_end', { result: { stopReason: 'agent_waiting', response: 'Waiting.', pendingAgents: [] } }),
    );
    expect(waiting.map((r) => r.payload?.$case)).toEqual(['statusUpdate', 'statusUpdate']);
    expect(waiting.at(-1)!.payload).toMatchObject({
      value: { status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } },
    });
  });
});

describe("a user's message as the platform's message text", () => {
  const message = (parts: Message['parts'], role = Role.ROLE_USER): Message => ({
    messageId: 'm',
    contextId: '',
    taskId: '',
    role,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const part = (content: NonNullable<Message['parts'][number]['content']>) => ({
    content,
    metadata: undefined,
    filename: '',
    mediaType: '',
  });

  it('joins text parts and writes data parts as JSON', () => {
    expect(
      contentOf(message([part({ $case: 'text', value: 'Sum these:' }), part({ $case: 'data', value: [1, 2] })])),
    ).toBe('Sum these:\n[1,2]');
  });

  it('refuses files, empty messages and messages from the agent side', () => {
    expect(() => contentOf(message([part({ $case: 'url', value: 'https://example.com/a.pdf' })]))).toThrow(
      ContentTypeNotSupportedError,
    );
    expect(() => contentOf(message([part({ $case: 'text', value: '  ' })]))).toThrow(RequestMalformedError);
    expect(() => contentOf(message([part({ $case: 'text', value: 'hi' })], Role.ROLE_AGENT))).toThrow(
      RequestMalformedError,
    );
    expect(() => contentOf(undefined)).toThrow(RequestMalformedError);
  });
});
