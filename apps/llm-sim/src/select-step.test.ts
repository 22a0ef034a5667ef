import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-request.js';
import { ScenarioSchema, type Scenario } from './scenario-schema.js';
import { findScenarioMarker, resolveStep, selectScenario, stepIndexOf, stripScenarioMarkers } from './select-step.js';

const scenario = (name: string, extra: object = {}): Scenario =>
  ScenarioSchema.parse({ name, steps: [{ content: 'one' }, { content: 'two' }], ...extra });
const scenarios = new Map([
  ['demo', scenario('demo')],
  ['plain', scenario('plain')],
  ['calculator', scenario('calculator')],
]);

const toolTurn = (id: string): ChatMessage[] => [
  { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'calculator', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: id, content: '{"result":1}' },
];

describe('scenario selection', () => {
  it('uses the default scenario when no user message has a marker', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are helpful. [scenario:plain]' },
      { role: 'user', content: 'hi' },
    ];
    const selected = selectScenario(messages, scenarios, 'demo');
    expect(selected.ok && selected.scenario.name).toBe('demo');
  });

  it('takes the marker of the latest user message that has one', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '[scenario:plain] first' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'second [scenario:calculator]' }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'third, no marker' },
    ];
    expect(findScenarioMarker(messages)).toBe('calculator');
    const selected = selectScenario(messages, scenarios, 'demo');
    expect(selected.ok && selected.scenario.name).toBe('calculator');
  });

  it('reports the available names for an unknown marker', () => {
    const selected = selectScenario([{ role: 'user', content: '[scenario:nope] hi' }], scenarios, 'demo');
    expect(selected).toEqual({ ok: false, requested: 'nope', available: ['calculator', 'demo', 'plain'] });
  });

  it('strips markers from user text', () => {
    expect(stripScenarioMarkers('[scenario:plain] What is  2+2?')).toBe('What is 2+2?');
  });
});

describe('step index', () => {
  it('is 0 at the start of a turn', () => {
    expect(stepIndexOf([{ role: 'user', content: 'hi' }])).toBe(0);
  });

  it('counts assistant messages after the latest turn-starting user message', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'old turn' },
      ...toolTurn('a'),
      { role: 'assistant', content: 'old answer' },
      { role: 'user', content: 'new turn' },
      ...toolTurn('b'),
      ...toolTurn('c'),
    ];
    expect(stepIndexOf(messages)).toBe(2);
  });

  it('does not treat Observation: user messages as turn starts', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'question' },
      { role: 'assistant', content: 'Action: calculator' },
      { role: 'user', content: 'Observation: 42' },
      { role: 'assistant', content: 'Action: calculator' },
      { role: 'user', content: '  Observation: 43' },
    ];
    expect(stepIndexOf(messages)).toBe(2);
  });

  it('counts every assistant message when no user message starts a turn', () => {
    expect(stepIndexOf([{ role: 'system', content: 's' }, { role: 'assistant', content: 'a' }])).toBe(1);
  });
});

describe('resolveStep', () => {
  it('replays the last step when exhausted with repeat-last', () => {
    const resolved = resolveStep(scenario('x'), 5);
    expect(resolved).toMatchObject({ ok: true, replayed: true, step: { content: 'two' } });
  });

  it('fails when exhausted with error', () => {
    expect(resolveStep(scenario('x', { whenExhausted: 'error' }), 2)).toEqual({ ok: false });
    expect(resolveStep(scenario('x', { whenExhausted: 'error' }), 1)).toMatchObject({ ok: true, replayed: false });
  });
});
