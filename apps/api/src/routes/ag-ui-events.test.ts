// AG-UI's mapping of a run's events (docs/protocols.md#ag-ui): text as it streams, tool calls with
// their argument deltas (or their arguments whole when none streamed), results, and each outcome.
import { EventType, type BaseEvent } from '@ag-ui/core';
import type { RunEventEnvelope, RunEventType } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { AgUiEventTranslator } from './ag-ui-events.js';

const RUN = { threadId: 'thread-1', runId: 'client-run-1' };

/** Translates `events` (type and data), numbered in order, with one translator. */
function translate(events: Array<[RunEventType, Record<string, unknown>]>, state?: unknown): BaseEvent[] {
  const translator = new AgUiEventTranslator({ ...RUN, state }, 'run_1');
  return events.flatMap(([type, data], i) =>
    translator.translate({ id: i + 1, runId: 'run_1', type, at: i, data } satisfies RunEventEnvelope),
  );
}

const types = (events: BaseEvent[]): string[] => events.map((e) => String(e.type));
const ofType = (events: BaseEvent[], type: EventType): Array<BaseEvent & Record<string, unknown>> =>
  events.filter((e) => e.type === type);

const ARGS = '{"expression":"12 * (3 + 4)"}';
const callMessage = { content: null, toolCalls: [{ id: 'call_1', name: 'calculator', arguments: ARGS }] };
const toolResult: [RunEventType, Record<string, unknown>] = [
  'tool_result',
  { iteration: 1, callId: 'call_1', name: 'calculator', status: 'success', content: '84', durationMs: 1 },
];
const toolStart: [RunEventType, Record<string, unknown>] = [
  'tool_call_start',
  { iteration: 1, callId: 'call_1', name: 'calculator', arguments: ARGS },
];
const finished = (stopReason: string, response = 'The answer is 84.'): [RunEventType, Record<string, unknown>] => [
  'execution_end',
  { result: { response, stopReason, usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } } },
];

describe('AgUiEventTranslator', () => {
  it('starts the run (with the input state as a snapshot) and streams text as one message', () => {
    const out = translate(
      [
        ['execution_start', {}],
        ['message_start', { iteration: 1 }],
        ['message_chunk', { iteration: 1, delta: 'The answer ' }],
        ['message_chunk', { iteration: 1, delta: 'is 84.' }],
        ['message_end', { iteration: 1, message: { content: 'The answer is 84.' } }],
        finished('final_answer'),
      ],
      { step: 1 },
    );
    expect(types(out)).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(out[0]).toMatchObject({ ...RUN, metadata: { platformRunId: 'run_1' } });
    expect(out[1]).toMatchObject({ snapshot: { step: 1 } });
    const contents = ofType(out, EventType.TEXT_MESSAGE_CONTENT);
    expect(contents.map((e) => e.delta).join('')).toBe('The answer is 84.');
    expect(new Set(contents.map((e) => e.messageId))).toEqual(new Set(['run_1-m1']));
  });

  it('sends a message that did not stream whole when it ends', () => {
    const out = translate([
      ['message_start', { iteration: 1 }],
      ['message_end', { iteration: 1, message: { content: 'whole' } }],
      finished('final_answer', 'whole'),
    ]);
    expect(types(out)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(ofType(out, EventType.TEXT_MESSAGE_CONTENT)[0]!.delta).toBe('whole');
  });

  it('starts a streamed tool call when it appears, sends each argument delta in order, and ends it with its message', () => {
    const pieces = ['{"exp', 'ressi', 'on":"', '12 * ', '(3 + ', '4)"}'];
    const out = translate([
      ['message_start', { iteration: 1 }],
      ['tool_call_args_delta', { iteration: 1, index: 0, callId: 'call_1', name: 'calculator', delta: '' }],
      ...pieces.map((delta): [RunEventType, Record<string, unknown>] => [
        'tool_call_args_delta',
        { iteration: 1, index: 0, callId: 'call_1', name: 'calculator', delta },
      ]),
      ['message_end', { iteration: 1, message: callMessage }],
      toolStart,
      toolResult,
      finished('final_answer'),
    ]);
    expect(types(out)).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_START',
      ...pieces.map(() => 'TOOL_CALL_ARGS'),
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      // The answer was not streamed: it comes whole at the end.
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(ofType(out, EventType.TOOL_CALL_START)[0]).toMatchObject({
      toolCallId: 'call_1',
      toolCallName: 'calculator',
      parentMessageId: 'run_1-m1',
    });
    const args = ofType(out, EventType.TOOL_CALL_ARGS);
    expect(args.map((e) => e.delta)).toEqual(pieces);
    expect(args.map((e) => e.delta).join('')).toBe(ARGS);
    expect(ofType(out, EventType.TOOL_CALL_RESULT)[0]).toMatchObject({
      toolCallId: 'call_1',
      messageId: 'call_1-result',
      content: '84',
      role: 'tool',
    });
  });

  it('gives a call whose arguments never streamed its arguments once, when it starts to run', () => {
    const out = translate([
      ['message_start', { iteration: 1 }],
      ['message_end', { iteration: 1, message: callMessage }],
      toolStart,
      toolResult,
      finished('final_answer'),
    ]);
    expect(types(out).slice(0, 5)).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
    ]);
    expect(ofType(out, EventType.TOOL_CALL_START)[0]).toMatchObject({
      toolCallId: 'call_1',
      parentMessageId: 'run_1-m1',
    });
    expect(ofType(out, EventType.TOOL_CALL_ARGS).map((e) => e.delta)).toEqual([ARGS]);
  });

  it('ends a streamed call whose model call was retried, and the run ends with no call left open', () => {
    const out = translate([
      ['message_start', { iteration: 1 }],
      ['tool_call_args_delta', { iteration: 1, index: 0, callId: 'call_x', name: 'calculator', delta: '{"ex' }],
      ['state_change', { state: 'retrying_model', reason: 'cut' }],
      ['tool_call_args_delta', { iteration: 1, index: 0, callId: 'call_1', name: 'calculator', delta: ARGS }],
      finished('cancelled', 'The request was cancelled before it finished.'),
    ]);
    const starts = ofType(out, EventType.TOOL_CALL_START).map((e) => e.toolCallId);
    const ends = ofType(out, EventType.TOOL_CALL_END).map((e) => e.toolCallId);
    expect(starts).toEqual(['call_x', 'call_1']);
    expect(ends).toEqual(['call_x', 'call_1']);
    expect(types(out).indexOf('TOOL_CALL_END')).toBeLessThan(types(out).lastIndexOf('TOOL_CALL_START'));
    expect(types(out).at(-1)).toBe('RUN_FINISHED');
  });

  it('finishes a run with outcome success, its result and usage', () => {
    const out = translate([finished('final_answer')]);
    expect(out.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      ...RUN,
      outcome: { type: 'success' },
      result: { response: 'The answer is 84.', stopReason: 'final_answer' },
      usage: [{ inputTokens: 3, outputTokens: 2, totalTokens: 5 }],
      metadata: { platformRunId: 'run_1' },
    });
  });

  it.each(['cancelled', 'rolled_back'])('finishes a %s run with outcome cancelled', (stopReason) => {
    expect(translate([finished(stopReason, 'stopped')]).at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'cancelled' },
      result: { stopReason },
    });
  });

  it.each(['model_error', 'plan_failed', 'invalid_output'])(
    'ends a %s run with RUN_ERROR, its stop reason as code',
    (stopReason) => {
      const out = translate([
        ['message_start', { iteration: 1 }],
        ['message_chunk', { iteration: 1, delta: 'partial' }],
        finished(stopReason, 'The model could not be reached.'),
      ]);
      expect(types(out)).toEqual([
        'RUN_STARTED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'RUN_ERROR',
      ]);
      expect(out.at(-1)).toMatchObject({ code: stopReason, message: 'The model could not be reached.' });
    },
  );

  it('says a turn that failed after the stream opened with RUN_ERROR, closing what was open', () => {
    const translator = new AgUiEventTranslator(RUN, 'run_1');
    translator.translate({ id: 1, runId: 'run_1', type: 'message_start', at: 0, data: { iteration: 1 } });
    translator.translate({
      id: 2,
      runId: 'run_1',
      type: 'tool_call_args_delta',
      at: 0,
      data: { iteration: 1, index: 0, callId: 'call_1', name: 'calculator', delta: '{' },
    });
    const out = translator.failed({ code: 'TURN_TIMEOUT', message: 'the run did not finish in time' });
    expect(types(out)).toEqual(['TOOL_CALL_END', 'RUN_ERROR']);
    expect(out.at(-1)).toMatchObject({ code: 'TURN_TIMEOUT', message: 'the run did not finish in time' });
  });
});
