import { describe, expect, it } from 'vitest';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from './chat-request.js';
import { ScenarioSchema, type Scenario, type ScenarioInput } from './scenario-schema.js';
import { buildToolReply, forcedToolNames, matchToolReply } from './tool-replies.js';

const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });
const request = (extra: object): ChatCompletionRequest =>
  ChatCompletionRequestSchema.parse({
    model: 'sim-1',
    messages: [{ role: 'user', content: '[scenario:x] window seat please' }],
    ...extra,
  });
const parse = (input: ScenarioInput): Scenario => ScenarioSchema.parse(input);

const plain = parse({ name: 'plain', steps: [{ content: 'x' }] });
const pick = parse({
  name: 'pick',
  steps: [{ content: 'x' }],
  toolReplies: {
    decide: { arguments: { said: '{{userMessage}}', list: [1, { nested: '{{userMessage}}' }] } },
    raw: { arguments: '{"not": json', id: 'call_fixed' },
  },
});
const other = parse({
  name: 'a-other',
  steps: [{ content: 'x' }],
  toolReplies: { decide: { arguments: { from: 'a-other' } } },
});
const only = parse({
  name: 'z-only',
  steps: [{ content: 'x' }],
  toolReplies: { fields: { arguments: { destination: 'NYC' } } },
});
const all = new Map([plain, pick, other, only].map((s) => [s.name, s]));

describe('forcedToolNames', () => {
  it('honours a named tool_choice only for an offered tool', () => {
    const choice = { type: 'function', function: { name: 'b' } };
    expect(forcedToolNames(request({ tools: [tool('a'), tool('b')], tool_choice: choice }))).toEqual(['b']);
    expect(forcedToolNames(request({ tools: [tool('a')], tool_choice: choice }))).toEqual([]);
  });

  it('forces every offered tool with required, the single tool otherwise, nothing when disabled', () => {
    expect(forcedToolNames(request({ tools: [tool('a'), tool('b')], tool_choice: 'required' }))).toEqual(['a', 'b']);
    expect(forcedToolNames(request({ tools: [tool('a'), tool('b')] }))).toEqual([]);
    expect(forcedToolNames(request({ tools: [tool('a'), tool('b')], tool_choice: 'auto' }))).toEqual([]);
    expect(forcedToolNames(request({ tools: [tool('a')] }))).toEqual(['a']);
    expect(forcedToolNames(request({ tools: [tool('a')], tool_choice: 'auto' }))).toEqual(['a']);
    expect(forcedToolNames(request({ tools: [tool('a')], tool_choice: 'none' }))).toEqual([]);
    expect(forcedToolNames(request({}))).toEqual([]);
  });
});

describe('matchToolReply', () => {
  it('prefers the selected scenario, then other scenarios in name order', () => {
    const forced = request({ tools: [tool('decide')] });
    expect(matchToolReply(forced, pick, all)?.scenario.name).toBe('pick');
    expect(matchToolReply(forced, plain, all)?.scenario.name).toBe('a-other');
    expect(matchToolReply(request({ tools: [tool('fields')] }), plain, all)).toMatchObject({
      scenario: { name: 'z-only' },
      toolName: 'fields',
    });
  });

  it('takes the first offered tool with a reply under tool_choice required', () => {
    const forced = request({ tools: [tool('other'), tool('fields'), tool('decide')], tool_choice: 'required' });
    expect(matchToolReply(forced, pick, all)?.toolName).toBe('decide');
    expect(matchToolReply(forced, plain, all)).toMatchObject({ scenario: { name: 'a-other' }, toolName: 'decide' });
  });

  it('matches nothing when no tool is forced or no scenario has a reply for it', () => {
    expect(matchToolReply(request({ tools: [tool('decide'), tool('x')] }), pick, all)).toBeUndefined();
    expect(
      matchToolReply(request({ tools: [tool('calculator')], tool_choice: 'required' }), pick, all),
    ).toBeUndefined();
    expect(matchToolReply(request({ tools: [tool('constructor')] }), pick, all)).toBeUndefined();
    expect(matchToolReply(request({ tools: [tool('decide')], tool_choice: 'none' }), pick, all)).toBeUndefined();
  });
});

describe('buildToolReply', () => {
  it('templates object arguments, sends strings verbatim, and gives stable ids', () => {
    const forced = request({ tools: [tool('decide')] });
    const reply = buildToolReply(matchToolReply(forced, pick, all)!, forced);
    expect(reply.content).toBeNull();
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.toolCalls).toHaveLength(1);
    const call = reply.toolCalls[0]!;
    expect(call.name).toBe('decide');
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(JSON.parse(call.arguments)).toEqual({
      said: 'window seat please',
      list: [1, { nested: 'window seat please' }],
    });
    expect(buildToolReply(matchToolReply(forced, pick, all)!, forced).toolCalls[0]!.id).toBe(call.id);

    const rawRequest = request({ tools: [tool('raw')] });
    const raw = buildToolReply(matchToolReply(rawRequest, pick, all)!, rawRequest).toolCalls[0]!;
    expect(raw).toEqual({ id: 'call_fixed', name: 'raw', arguments: '{"not": json' });
  });
});
