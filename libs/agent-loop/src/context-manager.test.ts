import type { ChatMessage } from '@platform/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextManager } from './context-manager.js';
import { compileLoopConfig } from './loop-config.js';
import { buildRequestView, ViewStages } from './request-view.js';

const config = compileLoopConfig({
  contextTokenLimit: 2_000,
  maxHistoryMessages: 6,
  forceTrimMessages: 3,
  maxToolResultShare: 0.25,
  minToolResultHeadChars: 100,
});
const cm = new ContextManager(config);

/** Random well-formed histories: system prompt, then user turns, assistant answers and tool exchanges. */
const history = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('user' as const), text: fc.string({ maxLength: 300 }) }),
      fc.record({ kind: fc.constant('answer' as const), text: fc.string({ maxLength: 300 }) }),
      fc.record({
        kind: fc.constant('tools' as const),
        results: fc.array(fc.string({ maxLength: 3_000 }), { minLength: 1, maxLength: 4 }),
      }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'persona' }];
    let id = 0;
    for (const part of parts) {
      if (part.kind === 'user') messages.push({ role: 'user', content: part.text });
      else if (part.kind === 'answer') messages.push({ role: 'assistant', content: part.text });
      else {
        const ids = part.results.map(() => `call_${id++}`);
        messages.push({
          role: 'assistant',
          content: null,
          toolCalls: ids.map((callId) => ({ id: callId, name: 'search', arguments: '{}' })),
        });
        part.results.forEach((content, i) =>
          messages.push({
            role: 'tool',
            toolCallId: ids[i]!,
            toolName: 'search',
            content,
            status: 'success',
            isError: false,
          }),
        );
      }
    }
    messages.push({ role: 'user', content: 'latest question' });
    return messages;
  });

/** The same histories in the middle of a turn: after the question, the turn's own tool steps. */
const midTurn = fc
  .tuple(
    history,
    fc.array(fc.array(fc.string({ maxLength: 500 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
  )
  .map(([messages, steps]) => {
    const out = [...messages];
    steps.forEach((results, step) => {
      const ids = results.map((_, i) => `turn_${step}_${i}`);
      out.push({
        role: 'assistant',
        content: null,
        toolCalls: ids.map((callId) => ({ id: callId, name: 'lookup', arguments: '{}' })),
      });
      results.forEach((content, i) =>
        out.push({ role: 'tool', toolCallId: ids[i]!, toolName: 'lookup', content, status: 'success', isError: false }),
      );
    });
    return out;
  });

function pairedCorrectly(messages: readonly ChatMessage[]): boolean {
  const offered = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') {
      const ids = (m.toolCalls ?? []).map((c) => c.id);
      const next = messages.slice(i + 1, i + 1 + ids.length);
      if (next.length !== ids.length || next.some((r) => r.role !== 'tool' || !ids.includes(r.toolCallId)))
        return false;
      ids.forEach((c) => offered.add(c));
    }
    if (m.role === 'tool' && !offered.has(m.toolCallId)) return false;
  }
  return true;
}

describe('ContextManager and request views (property-based)', () => {
  it('never separates a tool call from its result, and always keeps the system prompt and the latest message', () => {
    fc.assert(
      fc.property(history, fc.constantFrom(...ViewStages), (raw, stage) => {
        const rawCopy = structuredClone(raw);
        const view = buildRequestView(raw, { provider: 'scripted', model: 'm' }, stage, cm, config);
        expect(pairedCorrectly(view.messages)).toBe(true);
        expect(view.messages[0]).toEqual({ role: 'system', content: 'persona' });
        expect(view.messages.at(-1)).toEqual({ role: 'user', content: 'latest question' });
        expect(raw).toEqual(rawCopy);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the turn's question however many steps the turn has taken, with its newest step, at every stage", () => {
    fc.assert(
      fc.property(midTurn, fc.constantFrom(...ViewStages), (raw, stage) => {
        const view = buildRequestView(raw, { provider: 'scripted', model: 'm' }, stage, cm, config);
        expect(pairedCorrectly(view.messages)).toBe(true);
        expect(view.messages[0]).toEqual({ role: 'system', content: 'persona' });
        expect(view.messages.filter((m) => m.role === 'user').at(-1)).toEqual({
          role: 'user',
          content: 'latest question',
        });
        expect(view.messages.at(-1)).toMatchObject({
          role: 'tool',
          toolCallId: (raw.at(-1) as { toolCallId: string }).toolCallId,
        });
        // Only whole steps of the turn are left out, newest kept: what follows the question is a suffix of the turn.
        const afterQuestion = view.messages.slice(view.messages.findLastIndex((m) => m.role === 'user') + 1);
        expect(raw.slice(raw.length - afterQuestion.length).map((m) => m.role)).toEqual(
          afterQuestion.map((m) => m.role),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a view within the token budget (the trim threshold) unless the system prompt, question and newest unit alone pass it', () => {
    // Message counts loose enough that tokens are what binds.
    const roomy = compileLoopConfig({
      contextTokenLimit: 2_000,
      maxHistoryMessages: 100,
      forceTrimMessages: 50,
      maxToolResultShare: 0.25,
      minToolResultHeadChars: 100,
    });
    const roomyCm = new ContextManager(roomy);
    const budget = roomy.contextTokenLimit * roomy.contextTrimThreshold;
    // Turns of large tool results (0.5-3 KB each): together far over the budget.
    const bigTurns = fc
      .array(fc.array(fc.string({ minLength: 500, maxLength: 3_000 }), { minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: 12,
      })
      .map((turns) => {
        const messages: ChatMessage[] = [{ role: 'system', content: 'persona' }];
        turns.forEach((results, t) => {
          messages.push({ role: 'user', content: `question ${t}` });
          const ids = results.map((_, i) => `big_${t}_${i}`);
          messages.push({
            role: 'assistant',
            content: null,
            toolCalls: ids.map((id) => ({ id, name: 'fetch', arguments: '{}' })),
          });
          results.forEach((content, i) =>
            messages.push({
              role: 'tool',
              toolCallId: ids[i]!,
              toolName: 'fetch',
              content,
              status: 'success',
              isError: false,
            }),
          );
        });
        messages.push({ role: 'user', content: 'latest question' });
        return messages;
      });
    fc.assert(
      fc.property(fc.oneof(midTurn, bigTurns), fc.constantFrom(...ViewStages), (raw, stage) => {
        const view = buildRequestView(raw, { provider: 'scripted', model: 'm' }, stage, roomyCm, roomy);
        if (view.estimatedTokens <= budget) return;
        // Over budget only when nothing else is left to drop: system, question, newest step.
        const others = view.messages.filter((m) => m.role !== 'system');
        const question = others.findIndex((m) => m.role === 'user' && m.content === 'latest question');
        expect(others.slice(0, question)).toEqual([]);
        expect(others.slice(question + 1).filter((m) => m.role === 'assistant').length).toBeLessThanOrEqual(1);
      }),
      // Shrinking kilobyte strings takes long; the first counterexample says enough.
      { numRuns: 300, endOnFailure: true },
    );
  });

  it('trim keeps at most the configured messages (whole units) unless the newest unit alone is larger', () => {
    fc.assert(
      fc.property(history, (raw) => {
        const trimmed = cm.trim(raw).filter((m) => m.role !== 'system');
        expect(trimmed.length).toBeLessThanOrEqual(Math.max(config.maxHistoryMessages, 1));
        expect(pairedCorrectly(cm.trim(raw))).toBe(true);
        expect(pairedCorrectly(cm.forceTrim(raw))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('truncated tool results stay within the budget plus the marker', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 10_000 }), (text) => {
        const cut = cm.truncateToolResult(text);
        if (!cut.truncated) expect(cut.text).toBe(text);
        else {
          expect(cut.text.length).toBeLessThanOrEqual(cm.maxToolResultChars() + 80);
          expect(cut.text).toContain('[...truncated');
        }
      }),
    );
  });
});

describe('ContextManager.truncateToolResult', () => {
  it('uses the share of the context under the hard cap', () => {
    expect(cm.maxToolResultChars()).toBe(2_000);
    const capped = new ContextManager(compileLoopConfig({ maxToolResultChars: 1_000 }));
    expect(capped.maxToolResultChars()).toBe(1_000);
    expect(new ContextManager(compileLoopConfig()).maxToolResultChars()).toBe(153_600);
  });

  it('cuts at a line break when one is near the end, keeping the head', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');
    const cut = cm.truncateToolResult(lines, 1_000);
    expect(cut.truncated).toBe(true);
    const kept = cut.text.split('\n[...truncated')[0]!;
    expect(kept.endsWith('x')).toBe(true);
    expect(kept.length).toBeGreaterThan(500);
    expect(cut.text).toContain(`of ${lines.length} characters`);
  });
});
