import type { ChatMessage } from '@platform/contracts';
import { describe, expect, it } from 'vitest';
import { ContextManager } from './context-manager.js';
import { compileLoopConfig } from './loop-config.js';
import { buildRequestView } from './request-view.js';

const config = compileLoopConfig();
const cm = new ContextManager(config);

const raw: ChatMessage[] = [
  { role: 'system', content: 'persona' },
  { role: 'user', content: 'weather?' },
  {
    role: 'assistant',
    content: null,
    provider: 'gemini',
    model: 'gemini-x',
    providerFields: { reasoning: 'r' },
    toolCalls: [
      { id: 'g1', name: 'weather', arguments: '{"city":"Paris"}', providerFields: { thought_signature: 'sig' } },
    ],
  },
  { role: 'tool', toolCallId: 'g1', toolName: 'weather', content: 'sunny', status: 'success', isError: false },
  {
    role: 'assistant',
    content: 'Sunny in Paris.',
    provider: 'gemini',
    model: 'gemini-x',
    providerFields: { reasoning: 'r2' },
  },
  { role: 'user', content: 'and tomorrow?' },
];

describe('buildRequestView', () => {
  it('sends a same-provider history unchanged, provider fields included', () => {
    const view = buildRequestView(raw, { provider: 'gemini', model: 'gemini-x' }, 'full', cm, config);
    expect(view.messages).toEqual(raw);
    expect(view.diagnostics).toEqual([]);
  });

  it('masks another provider’s tool exchange as text and drops its fields, without touching raw history', () => {
    const before = structuredClone(raw);
    const view = buildRequestView(raw, { provider: 'openai', model: 'gpt-x' }, 'full', cm, config);
    expect(raw).toEqual(before);
    expect(view.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'assistant', 'user']);
    expect(view.messages[2]).toEqual({
      role: 'assistant',
      content: '[Earlier tool call weather({"city":"Paris"}) -> sunny]',
    });
    expect(view.messages[3]).toEqual({
      role: 'assistant',
      content: 'Sunny in Paris.',
      provider: 'gemini',
      model: 'gemini-x',
    });
    expect(view.diagnostics.map((d) => d.kind)).toEqual(['tool_exchange_masked', 'provider_fields_dropped']);
  });

  it('keeps tool calls but drops fields of another model of the same provider', () => {
    const view = buildRequestView(raw, { provider: 'gemini', model: 'gemini-y' }, 'full', cm, config);
    expect(view.messages[2]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'g1', name: 'weather' }] });
    expect(view.messages[2]).not.toHaveProperty('providerFields');
    expect((view.messages[2] as { toolCalls: Array<Record<string, unknown>> }).toolCalls[0]).not.toHaveProperty(
      'providerFields',
    );
  });

  it('repairs orphan results and unanswered calls in the view only, with diagnostics', () => {
    const broken: ChatMessage[] = [
      { role: 'tool', toolCallId: 'lost', toolName: 'x', content: 'orphan', status: 'success', isError: false },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'x', arguments: '{}' }] },
      { role: 'user', content: 'next' },
    ];
    const view = buildRequestView(broken, { provider: 'p', model: 'm' }, 'full', cm, config);
    expect(view.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(view.messages[1]).toMatchObject({ toolCallId: 'c1', synthetic: true, errorCode: 'NO_RESULT' });
    expect(view.diagnostics.map((d) => d.kind)).toEqual(['orphan_tool_result_dropped', 'missing_tool_result_filled']);
  });

  it('truncates large tool results in the view and records the original size', () => {
    const big: ChatMessage[] = [
      { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'fetch', arguments: '{}' }] },
      {
        role: 'tool',
        toolCallId: 'c',
        toolName: 'fetch',
        content: 'y'.repeat(50_000),
        status: 'success',
        isError: false,
      },
    ];
    const small = compileLoopConfig({ overflowToolResultChars: 1_000 });
    const view = buildRequestView(
      big,
      { provider: 'p', model: 'm' },
      'tool_results_truncated',
      new ContextManager(small),
      small,
    );
    expect(view.messages[1]!.content!.length).toBeLessThan(1_100);
    expect(view.diagnostics).toContainEqual(
      expect.objectContaining({ kind: 'tool_result_truncated', originalChars: 50_000 }),
    );
    expect(big[1]!.content).toHaveLength(50_000);
  });
});
