import type { ModelResponse, ToolOutcome } from '@platform/agent-loop';
import { describe, expect, it } from 'vitest';
import type { JournaledSteps } from '../journal/run-steps.js';
import { replayedSteps, replayJournal, replayRefusal } from './replay-steps.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const asks = (...ids: string[]): ModelResponse => ({
  message: {
    role: 'assistant',
    content: null,
    toolCalls: ids.map((id) => ({ id, name: 'calculator', arguments: '{}' })),
  },
  usage,
  finishReason: 'tool_calls',
});
const answer = (content: string): ModelResponse => ({
  message: { role: 'assistant', content },
  usage,
  finishReason: 'stop',
});
const outcome = (result: string) => ({ status: 'success', result }) as unknown as ToolOutcome;

// A run: step 0 asks for c1 and c2, step 1 for c3, step 2 answers.
const journal: JournaledSteps = {
  models: [asks('c1', 'c2'), asks('c3'), answer('done')],
  tools: new Map([
    ['c1', outcome('1')],
    ['c2', outcome('2')],
    ['c3', outcome('3')],
  ]),
};

describe('replayRefusal', () => {
  it('allows every step boundary up to the answer', () => {
    for (const step of [0, 1, 2]) expect(replayRefusal(journal, step)).toBeUndefined();
  });

  it('refuses a step past the answer, or past the run', () => {
    expect(replayRefusal(journal, 3)).toMatch(/answer.*at most 2/);
    expect(replayRefusal(journal, 4)).toMatch(/3 steps: fromStep is at most 3/);
    expect(replayRefusal(journal, -1)).toMatch(/at least 0/);
    expect(replayRefusal(journal, 1.5)).toMatch(/integer/);
  });

  it('allows going live after the last step when it asked for tools whose results are journaled (a run that failed after them)', () => {
    const failed: JournaledSteps = { models: [asks('c1')], tools: new Map([['c1', outcome('1')]]) };
    expect(replayRefusal(failed, 1)).toBeUndefined();
  });

  it('refuses a replay between a tool call and its result', () => {
    const waiting: JournaledSteps = { models: [asks('c1'), asks('c2')], tools: new Map([['c1', outcome('1')]]) };
    expect(replayRefusal(waiting, 1)).toBeUndefined();
    expect(replayRefusal(waiting, 2)).toMatch(/step 1's call of 'calculator'.*from step 1 at most/);
  });

  it('has nothing to replay from step 0 of a run without steps', () => {
    expect(replayRefusal({ models: [], tools: new Map() }, 0)).toMatch(/at most 0/);
  });
});

describe('replayedSteps and replayJournal', () => {
  it('keeps the responses before fromStep and only their calls', () => {
    const kept = replayedSteps(journal, 1);
    expect(kept.models).toEqual([journal.models[0]]);
    expect([...kept.tools.keys()]).toEqual(['c1', 'c2']);
    expect(replayedSteps(journal, 0)).toEqual({ models: [], tools: new Map() });
  });

  it("puts the replay's own steps after the original's", () => {
    const own: JournaledSteps = { models: [answer('mine')], tools: new Map([['c9', outcome('9')]]) };
    const merged = replayJournal(replayedSteps(journal, 2), own);
    expect(merged.models).toEqual([journal.models[0], journal.models[1], own.models[0]]);
    expect([...merged.tools.keys()]).toEqual(['c1', 'c2', 'c3', 'c9']);
  });
});
