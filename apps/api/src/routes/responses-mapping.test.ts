// The Responses API's mapping onto runs: `input` items to the turn's messages, `text.format` to the
// output schema, a run's state to a response object, and a run's events to the Responses stream.
import type { RunEventEnvelope } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import type { SseStream } from '../events/sse.js';
import { HttpError } from '../http-errors.js';
import { facadeInput } from './chat-completions-input.js';
import { outputSchemaOfTextFormat } from './responses-format.js';
import { responsesMessages } from './responses-input.js';
import { responseObject } from './responses-object.js';
import { responseEventRenderer } from './responses-stream.js';

function refusal(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('responsesMessages (input)', () => {
  it('takes a string as one user message', () => {
    expect(responsesMessages('hello')).toEqual([{ role: 'user', content: 'hello' }]);
  });

  it('takes user, system and developer message items of string or input_text content', () => {
    const messages = responsesMessages([
      { role: 'system', content: 'Be brief.' },
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Use metric units.' }] },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'How far' },
          { type: 'input_text', text: 'is it?' },
        ],
      },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'How far' },
          { type: 'text', text: 'is it?' },
        ],
      },
    ]);
    // As the facade's turn: the latest user message, the earlier ones as context.
    expect(facadeInput(messages, undefined, 'c-1')).toEqual({
      conversationId: 'c-1',
      content: 'Conversation so far:\nsystem: Be brief.\nsystem: Use metric units.\n\nLatest message:\nHow far\nis it?',
    });
  });

  it.each([
    [[{ type: 'function_call_output', call_id: 'c', output: '1' }], 'input[0]', /function_call_output/],
    [[{ type: 'reasoning', summary: [] }], 'input[0]', /reasoning/],
    [[{ role: 'assistant', content: 'earlier' }], 'input[0].role', /previous_response_id/],
    [[{ role: 'tool', content: 'x' }], 'input[0].role', /user, system or developer/],
    [[{ content: 'no role' }], 'input[0].role', /user, system or developer/],
    [
      [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }],
      'input[0].content[0]',
      /input_image/,
    ],
    [[{ role: 'user', content: [{ type: 'input_text' }] }], 'input[0].content[0].text', /string/],
    [[{ role: 'user', content: 42 }], 'input[0].content', /string or an array/],
  ])('refuses %j with a typed 400 naming %s', (input, field, message) => {
    const error = refusal(() => responsesMessages(input));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('UNSUPPORTED_INPUT_ITEM');
    expect(error.details).toEqual({ field });
    expect(error.message).toMatch(message);
  });
});

describe('outputSchemaOfTextFormat (text.format)', () => {
  it('gives the json_schema format its schema, json_object any object, and text none', () => {
    const schema = { type: 'object', properties: { sum: { type: 'number' } } };
    expect(outputSchemaOfTextFormat({ type: 'json_schema', name: 'sum', schema, strict: true })).toEqual(schema);
    expect(outputSchemaOfTextFormat({ type: 'json_object' })).toEqual({ type: 'object' });
    expect(outputSchemaOfTextFormat({ type: 'text' })).toBeUndefined();
    expect(outputSchemaOfTextFormat(undefined)).toBeUndefined();
  });
});

const FACTS = {
  runId: 'run_abc',
  createdAt: 1_780_306_200,
  model: 'default',
  instructions: null,
  previousResponseId: 'run_prev',
  format: undefined,
};
const USAGE = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };

describe('responseObject (a run as a response)', () => {
  it("holds a completed run's answer as one output_text message, with usage", () => {
    const response = responseObject({
      ...FACTS,
      runStatus: 'completed',
      result: { response: '4', stopReason: 'final_answer', usage: USAGE },
    });
    expect(response).toMatchObject({
      id: 'run_abc',
      object: 'response',
      status: 'completed',
      previous_response_id: 'run_prev',
      error: null,
      output: [
        {
          id: 'msg_abc',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: '4', annotations: [] }],
        },
      ],
      usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
      text: { format: { type: 'text' } },
    });
  });

  it('gives a structured answer as its JSON text', () => {
    const response = responseObject({ ...FACTS, runStatus: 'completed', result: { response: 'x', output: { a: 1 } } });
    expect(response.output[0]?.content[0]?.text).toBe('{"a":1}');
  });

  it.each([
    ['queued', undefined, 'queued'],
    ['running', undefined, 'in_progress'],
    ['waiting', 'agent_waiting', 'incomplete'],
    ['completed', 'max_turns', 'incomplete'],
    ['completed', 'cancelled', 'cancelled'],
    ['cancelled', 'cancelled', 'cancelled'],
    ['failed', 'error', 'failed'],
  ])('answers a %s run stopped by %s as %s', (runStatus, stopReason, status) => {
    const result = runStatus === 'queued' || runStatus === 'running' ? undefined : { response: 'text', stopReason };
    expect(responseObject({ ...FACTS, runStatus, result }).status).toBe(status);
  });

  it("puts a failed run's message in `error`, not in the output", () => {
    const response = responseObject({ ...FACTS, runStatus: 'failed', result: { response: 'the model is down' } });
    expect(response.output).toEqual([]);
    expect(response.error).toEqual({ code: 'server_error', message: 'the model is down' });
  });
});

/** A stream that records what is sent. */
function recordingStream(): { stream: SseStream; sent: Array<{ event: string; data: Record<string, unknown> }> } {
  const sent: Array<{ event: string; data: Record<string, unknown> }> = [];
  const stream = { send: (event: string, data: Record<string, unknown>) => sent.push({ event, data }) };
  return { stream: stream as unknown as SseStream, sent };
}

let nextId = 1;
function event(type: RunEventEnvelope['type'], data: Record<string, unknown>): RunEventEnvelope {
  return { id: nextId++, runId: 'run_abc', type, at: 0, data };
}

describe("responseEventRenderer (a run's events as the Responses stream)", () => {
  it("streams only the final message's text, the retried call's once, in the Responses event order", () => {
    const { stream, sent } = recordingStream();
    const render = responseEventRenderer(() => FACTS, false);
    for (const e of [
      event('state_change', { state: 'calling_model' }),
      event('message_chunk', { delta: 'Let me compute' }),
      event('message_end', { message: { toolCalls: [{ id: 'c1' }] } }),
      event('message_chunk', { delta: 'half' }),
      event('state_change', { state: 'retrying_model' }),
      event('message_chunk', { delta: 'It is ' }),
      event('message_chunk', { delta: '84.' }),
      event('message_end', { message: {} }),
      event('execution_end', { result: { status: 'completed', response: 'It is 84.', usage: USAGE } }),
    ])
      render(stream, e);
    expect(sent.map((s) => s.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(sent.map((s) => s.data['type'])).toEqual(sent.map((s) => s.event));
    expect(sent.map((s) => s.data['sequence_number'])).toEqual(sent.map((_, i) => i));
    expect(sent.filter((s) => s.event === 'response.output_text.delta').map((s) => s.data['delta'])).toEqual([
      'It is ',
      '84.',
    ]);
    expect(sent[6]?.data).toMatchObject({ item_id: 'msg_abc', output_index: 0, content_index: 0, text: 'It is 84.' });
    expect(sent.at(-1)?.data['response']).toMatchObject({
      id: 'run_abc',
      status: 'completed',
      output: [{ content: [{ type: 'output_text', text: 'It is 84.' }] }],
      usage: { total_tokens: 12 },
    });
  });

  it('sends a structured answer whole at the end, and a failed run as response.failed', () => {
    const structured = recordingStream();
    const render = responseEventRenderer(() => FACTS, true);
    render(structured.stream, event('message_chunk', { delta: '{"a":' }));
    render(structured.stream, event('message_end', { message: {} }));
    render(structured.stream, event('execution_end', { result: { status: 'completed', output: { a: 1 } } }));
    expect(structured.sent.filter((s) => s.event === 'response.output_text.delta').map((s) => s.data['delta'])).toEqual(
      ['{"a":1}'],
    );

    const failed = recordingStream();
    const renderFailed = responseEventRenderer(() => FACTS, false);
    renderFailed(failed.stream, event('execution_end', { result: { status: 'failed', response: 'down' } }));
    expect(failed.sent.at(-1)?.event).toBe('response.failed');
    expect(failed.sent.at(-1)?.data['response']).toMatchObject({ status: 'failed', error: { message: 'down' } });
  });

  it("puts a failed run's message only in `error`: no output item, no text", () => {
    const { stream, sent } = recordingStream();
    const render = responseEventRenderer(() => FACTS, false);
    for (const e of [
      event('message_chunk', { delta: 'The model could' }),
      event('execution_end', {
        result: { status: 'failed', stopReason: 'model_error', response: 'The model could not be reached.' },
      }),
    ])
      render(stream, e);
    expect(sent.map((s) => s.event)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(sent.at(-1)?.data['response']).toMatchObject({
      status: 'failed',
      output: [],
      error: { code: 'server_error', message: 'The model could not be reached.' },
    });
  });

  it('ends a cancelled run with response.incomplete, its status cancelled (the SDK has no response.cancelled)', () => {
    const { stream, sent } = recordingStream();
    const render = responseEventRenderer(() => FACTS, false);
    render(stream, event('execution_end', { result: { status: 'cancelled', stopReason: 'cancelled', response: '' } }));
    expect(sent.map((s) => s.event)).toEqual(['response.created', 'response.in_progress', 'response.incomplete']);
    expect(sent.at(-1)?.data['response']).toMatchObject({ status: 'cancelled', output: [], error: null });
  });
});
