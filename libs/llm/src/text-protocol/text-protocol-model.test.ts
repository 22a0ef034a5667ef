import type { FinishReason, ModelPort, ModelRequest, ModelResponse, ToolSchema } from '@platform/agent-loop';
import { AssistantMessage, type ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { TextProtocolModel } from './text-protocol-model.js';

/** An inner model that records each request and answers with canned text, streaming it in pieces. */
class ScriptedModel implements ModelPort {
  readonly provider = 'local';
  readonly model = 'tiny-1';
  readonly requests: ModelRequest[] = [];

  constructor(private readonly replies: string[]) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(structuredClone({ ...request, onTextDelta: undefined, signal: undefined }));
    const text = this.replies.shift();
    if (text === undefined) throw new Error('the script has no reply left');
    for (const piece of text.match(/[\s\S]{1,5}/g) ?? []) request.onTextDelta?.(piece);
    const finishReason: FinishReason = 'stop';
    return {
      message: { role: 'assistant', content: text, provider: this.provider, model: this.model },
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      finishReason,
    };
  }
}

const calculator: ToolSchema = {
  name: 'calculator',
  description: 'Evaluates arithmetic.',
  parameters: { type: 'object', properties: { expression: { type: 'string' } } },
};

function ids() {
  let next = 0;
  return () => `call_tp_test${++next}`;
}

describe('TextProtocolModel', () => {
  it('takes provider and model from the inner model', () => {
    const model = new TextProtocolModel(new ScriptedModel([]));
    expect([model.provider, model.model]).toEqual(['local', 'tiny-1']);
  });

  it('runs a tool round trip: action as a tool call, observation as text, then the final answer', async () => {
    const inner = new ScriptedModel([
      "Thought: I should compute it.\nAction: {'tool': 'calculator', 'arguments': {'expression': '6*7'},}",
      'Thought: The tool said 42.\nFinal Answer: 6 times 7 is 42.',
    ]);
    const model = new TextProtocolModel(inner, { newCallId: ids() });
    const history: ChatMessage[] = [{ role: 'user', content: 'What is 6*7?' }];

    const first = await model.complete({ messages: history, tools: [calculator], toolChoice: 'auto' });
    expect(first.finishReason).toBe('tool_calls');
    expect(first.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(first.protocolFeedback).toBeUndefined();
    expect(first.message).toEqual({
      role: 'assistant',
      content: 'I should compute it.',
      toolCalls: [{ id: 'call_tp_test1', name: 'calculator', arguments: '{"expression":"6*7"}' }],
      provider: 'local',
      model: 'tiny-1',
      providerFields: {
        textProtocol: {
          raw: "Thought: I should compute it.\nAction: {'tool': 'calculator', 'arguments': {'expression': '6*7'},}",
        },
      },
    });

    expect(() => AssistantMessage.parse(first.message)).not.toThrow();
    history.push(first.message, {
      role: 'tool',
      toolCallId: 'call_tp_test1',
      toolName: 'calculator',
      content: '42',
      status: 'success',
      isError: false,
    });
    const second = await model.complete({ messages: history, tools: [calculator], toolChoice: 'auto' });
    expect(second.finishReason).toBe('stop');
    expect(second.message.content).toBe('6 times 7 is 42.');
    expect(second.message.providerFields).toEqual({
      textProtocol: { raw: 'Thought: The tool said 42.\nFinal Answer: 6 times 7 is 42.' },
    });

    const sent = inner.requests[1]!;
    expect(sent.tools).toEqual([]);
    expect(sent.toolChoice).toBe('none');
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent.messages[0]!.content).toContain('- calculator: Evaluates arithmetic. Arguments (JSON Schema):');
    expect(sent.messages[2]).toMatchObject({
      role: 'assistant',
      content: "Thought: I should compute it.\nAction: {'tool': 'calculator', 'arguments': {'expression': '6*7'},}",
    });
    expect(sent.messages[2]).not.toHaveProperty('toolCalls');
    expect(sent.messages[3]).toEqual({ role: 'user', content: 'Observation: 42' });
  });

  it('gives every parsed call a fresh id by default', async () => {
    const reply = 'Action: {"tool": "calculator", "arguments": {"expression": "1"}}';
    const model = new TextProtocolModel(new ScriptedModel([reply, reply]));
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'x' }],
      tools: [calculator],
      toolChoice: 'auto',
    };
    const [a, b] = [await model.complete(request), await model.complete(request)];
    expect(a.message.toolCalls![0]!.id).toMatch(/^call_tp_[0-9a-f]{24}$/);
    expect(a.message.toolCalls![0]!.id).not.toBe(b.message.toolCalls![0]!.id);
  });

  it('returns the raw text and protocol feedback when the reply cannot be parsed', async () => {
    const model = new TextProtocolModel(new ScriptedModel(['Thought: hmm\nAction: {tool search}']));
    const response = await model.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [calculator],
      toolChoice: 'auto',
    });
    expect(response.message).toMatchObject({ role: 'assistant', content: 'Thought: hmm\nAction: {tool search}' });
    expect(response.message.toolCalls).toBeUndefined();
    expect(response.finishReason).toBe('stop');
    expect(response.protocolFeedback).toMatch(
      /^Observation: Error parsing your response: could not read a JSON object from the action text "\{tool search\}"/,
    );
    expect(response.protocolFeedback).toContain('Reply with Thought: then either Action: {"tool":');
  });

  it('with toolChoice none asks for a final answer only and never returns a tool call', async () => {
    const inner = new ScriptedModel(['Action: {"tool": "calculator", "arguments": {}}', 'Final Answer: It is 42.']);
    const model = new TextProtocolModel(inner);
    const request: ModelRequest = {
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'x' },
      ],
      tools: [calculator],
      toolChoice: 'none',
    };

    const stray = await model.complete(request);
    expect(stray.message.toolCalls).toBeUndefined();
    expect(stray.protocolFeedback).toBeUndefined();
    const answered = await model.complete(request);
    expect(answered.message.content).toBe('It is 42.');

    const system = inner.requests[0]!.messages[0]!.content!;
    expect(system).toContain('Final Answer:');
    expect(system).not.toContain('calculator');
    expect(inner.requests[0]).toMatchObject({ tools: [], toolChoice: 'none' });
  });

  it('asks for a response format in the prompt when the reply may be an action, and passes it on when the reply is the answer', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const responseFormat = { type: 'json_schema' as const, name: 'output', schema, strict: false };
    const inner = new ScriptedModel(['Thought: known\nFinal Answer: {"city": "Berlin"}', '{"city": "Berlin"}']);
    const model = new TextProtocolModel(inner);
    const answered = await model.complete({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'x' },
      ],
      tools: [calculator],
      toolChoice: 'auto',
      responseFormat,
    });
    expect(answered.message.content).toBe('{"city": "Berlin"}');
    expect(inner.requests[0]!.responseFormat).toBeUndefined();
    const system = inner.requests[0]!.messages[0]!.content!;
    expect(system).toContain('Final Answer:');
    expect(system).toContain(`valid against this JSON Schema:\n${JSON.stringify(schema)}`);

    await model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], toolChoice: 'auto', responseFormat });
    expect(inner.requests[1]!.responseFormat).toEqual(responseFormat);
    expect(inner.requests[1]!.messages).toEqual([{ role: 'user', content: 'x' }]);
  });

  it('passes a plain chat without tools through untouched', async () => {
    const inner = new ScriptedModel(['Hello! The final answer: nothing to do.']);
    const response = await new TextProtocolModel(inner).complete({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      toolChoice: 'auto',
    });
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Hello! The final answer: nothing to do.',
      provider: 'local',
      model: 'tiny-1',
    });
    expect(inner.requests[0]!.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('streams only the final answer text to the caller', async () => {
    const deltas: string[] = [];
    const model = new TextProtocolModel(new ScriptedModel(['Thought: easy\nFinal Answer: Forty-two.']));
    await model.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [calculator],
      toolChoice: 'auto',
      onTextDelta: (d) => deltas.push(d),
    });
    expect(deltas.join('')).toBe('Forty-two.');
  });
});
