// How a settled remote task becomes the child's outcome, and which parts make its text.
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { isSettled, outcomeOfTask, textOfParts } from './remote-task-state.js';

const text = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const message = (value: string) => ({
  messageId: 'm',
  contextId: 'c',
  taskId: 't',
  role: Role.ROLE_AGENT,
  parts: [text(value)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

function task(state: TaskState, extra: Partial<Task> = {}, said?: string): Task {
  return {
    id: 't',
    contextId: 'c',
    status: { state, message: said ? message(said) : undefined, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: undefined,
    ...extra,
  };
}

describe('remote task outcomes', () => {
  it("answers a completed task with its artifacts' text, else its status message, else the agent's last message", () => {
    const artifact = {
      artifactId: 'a',
      name: '',
      description: '',
      parts: [text('sunny')],
      metadata: undefined,
      extensions: [],
    };
    expect(
      outcomeOfTask(
        task(TaskState.TASK_STATE_COMPLETED, { artifacts: [artifact, { ...artifact, parts: [text('22°C')] }] }),
        'f',
      ),
    ).toEqual({
      kind: 'completed',
      text: 'sunny\n\n22°C',
    });
    expect(outcomeOfTask(task(TaskState.TASK_STATE_COMPLETED, {}, 'rain'), 'f')).toEqual({
      kind: 'completed',
      text: 'rain',
    });
    expect(outcomeOfTask(task(TaskState.TASK_STATE_COMPLETED, { history: [message('snow')] }), 'f')).toEqual({
      kind: 'completed',
      text: 'snow',
    });
  });

  it('makes input-required and auth-required a wait with the question, and failed, rejected and canceled failures', () => {
    expect(outcomeOfTask(task(TaskState.TASK_STATE_INPUT_REQUIRED, {}, 'Which city?'), 'f')).toEqual({
      kind: 'waiting',
      state: 'input-required',
      prompt: 'Which city?',
    });
    expect(outcomeOfTask(task(TaskState.TASK_STATE_AUTH_REQUIRED), 'f')).toMatchObject({
      kind: 'waiting',
      prompt: "The remote agent 'f' needs authentication to go on.",
    });
    expect(outcomeOfTask(task(TaskState.TASK_STATE_FAILED, {}, 'boom'), 'f')).toEqual({
      kind: 'failed',
      message: "the remote agent 'f' failed the task: boom",
    });
    expect(outcomeOfTask(task(TaskState.TASK_STATE_REJECTED), 'f')).toEqual({
      kind: 'failed',
      message: "the remote agent 'f' rejected the task",
    });
    expect(outcomeOfTask(task(TaskState.TASK_STATE_CANCELED), 'f').kind).toBe('failed');
  });

  it('settles on every state but submitted and working', () => {
    expect(isSettled(task(TaskState.TASK_STATE_SUBMITTED))).toBe(false);
    expect(isSettled(task(TaskState.TASK_STATE_WORKING))).toBe(false);
    expect(isSettled(task(TaskState.TASK_STATE_INPUT_REQUIRED))).toBe(true);
    expect(isSettled(task(TaskState.TASK_STATE_COMPLETED))).toBe(true);
  });

  it('writes data parts as JSON and files by URL or name', () => {
    expect(
      textOfParts([
        {
          content: { $case: 'data', value: { t: 1 } },
          metadata: undefined,
          filename: '',
          mediaType: 'application/json',
        },
        {
          content: { $case: 'url', value: 'https://x.example/f.pdf' },
          metadata: undefined,
          filename: 'f.pdf',
          mediaType: '',
        },
      ]),
    ).toBe('{"t":1}\nf.pdf: https://x.example/f.pdf');
  });
});
