import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-request.js';
import { ScenarioSchema, type Scenario } from './scenario-schema.js';
import { findScenarioMarker, findScenarioMarkerMessage, stripScenarioMarkers } from './scenario-markers.js';
import { resolveStep, selectScenario, stepIndexOf, turnIndexOf } from './select-step.js';

const scenario = (name: string, extra: object = {}): Scenario =>
  ScenarioSchema.parse({ name, steps: [{ content: 'one' }, { content: 'two' }], ...extra });
const scenarios = new Map([
  ['demo', scenario('demo')],
  ['plain', scenario('plain')],
  ['calculator', scenario('calculator')],
]);

const toolTurn = (id: string): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'calculator', arguments: '{}' } }],
  },
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

  it('uses a persona marker of the system prompt when no user message has a marker', () => {
    const persona: ChatMessage[] = [
      { role: 'system', content: 'You estimate. [persona-scenario:calculator]' },
      { role: 'user', content: 'how much?' },
    ];
    const selected = selectScenario(persona, scenarios, 'demo');
    expect(selected.ok && selected.scenario.name).toBe('calculator');
    const overridden = selectScenario(
      [...persona.slice(0, 1), { role: 'user', content: '[scenario:plain] how much?' }],
      scenarios,
      'demo',
    );
    expect(overridden.ok && overridden.scenario.name).toBe('plain');
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
    expect(
      stepIndexOf([
        { role: 'system', content: 's' },
        { role: 'assistant', content: 'a' },
      ]),
    ).toBe(1);
  });

  it('skips platform-added exchanges whose tool-call ids all end in :resumed', () => {
    const resumed = (id: string): ChatMessage[] => toolTurn(`${id}:resumed`);
    const messages: ChatMessage[] = [{ role: 'user', content: 'yes' }, ...resumed('call_a')];
    expect(stepIndexOf(messages)).toBe(0);
    // Model steps around it still count.
    expect(stepIndexOf([...messages, ...toolTurn('b'), ...resumed('call_c')])).toBe(1);
    // Only when ALL calls are resumed ones: a mixed message is a model step.
    const mixed: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'x:resumed', type: 'function', function: { name: 'a', arguments: '{}' } },
        { id: 'y', type: 'function', function: { name: 'b', arguments: '{}' } },
      ],
    };
    expect(stepIndexOf([{ role: 'user', content: 'q' }, mixed])).toBe(1);
    // A plain assistant message (no tool calls) is a step even if its text mentions :resumed.
    expect(
      stepIndexOf([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'id:resumed' },
      ]),
    ).toBe(1);
  });
});

describe('turn index', () => {
  it('counts turn-starting user messages after the marker message (turn 0)', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'before the scenario' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: '[scenario:plain] plan a trip' },
    ];
    expect(findScenarioMarkerMessage(messages)).toEqual({ index: 2, name: 'plain' });
    expect(turnIndexOf(messages)).toBe(0);
    messages.push(
      ...toolTurn('a'),
      { role: 'user', content: 'Observation: not a turn' },
      { role: 'assistant', content: 'x' },
    );
    expect(turnIndexOf(messages)).toBe(0);
    messages.push({ role: 'user', content: 'yes' }, ...toolTurn('b:resumed'));
    expect(turnIndexOf(messages)).toBe(1);
    messages.push({ role: 'assistant', content: 'done' }, { role: 'user', content: 'and now?' });
    expect(turnIndexOf(messages)).toBe(2);
    // Repeating the same marker continues the scenario; another scenario's marker restarts the count.
    messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: '[scenario:plain] still the trip' });
    expect(turnIndexOf(messages)).toBe(3);
    messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: '[scenario:calculator] new' });
    expect(turnIndexOf(messages)).toBe(0);
    messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: '[scenario:plain] back again' });
    expect(turnIndexOf(messages)).toBe(0);
  });

  it('counts from the first turn-starting user message without a marker', () => {
    expect(turnIndexOf([{ role: 'system', content: 's' }])).toBe(0);
    expect(turnIndexOf([{ role: 'user', content: 'a' }])).toBe(0);
    expect(
      turnIndexOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ]),
    ).toBe(1);
  });
});

describe('resolveStep', () => {
  it('replays the last step when exhausted with repeat-last', () => {
    const resolved = resolveStep(scenario('x'), 5);
    expect(resolved).toMatchObject({ ok: true, replayed: true, step: { content: 'two' } });
  });

  it('fails when exhausted with error', () => {
    expect(resolveStep(scenario('x', { whenExhausted: 'error' }), 2)).toEqual({ ok: false, turn: 0, stepCount: 2 });
    expect(resolveStep(scenario('x', { whenExhausted: 'error' }), 1)).toMatchObject({ ok: true, replayed: false });
  });

  it('serves the steps of a steps scenario in every turn', () => {
    expect(resolveStep(scenario('x'), 0, 3)).toMatchObject({ ok: true, turn: 0, step: { content: 'one' } });
    expect(resolveStep(scenario('x', { whenExhausted: 'error' }), 2, 3)).toEqual({ ok: false, turn: 0, stepCount: 2 });
  });

  it('picks the turn, then the step; past the last turn the last turn is used', () => {
    const multi = (whenExhausted: 'repeat-last' | 'error'): Scenario =>
      ScenarioSchema.parse({
        name: 'multi',
        whenExhausted,
        turns: [{ steps: [{ content: 't0s0' }, { content: 't0s1' }] }, { steps: [{ content: 't1s0' }] }],
      });
    const content = (r: ReturnType<typeof resolveStep>) => (r.ok ? r.step.content : 'error');
    expect(content(resolveStep(multi('error'), 0, 0))).toBe('t0s0');
    expect(content(resolveStep(multi('error'), 1, 0))).toBe('t0s1');
    // Earlier turns replay their last step; whenExhausted only governs the last turn.
    expect(resolveStep(multi('error'), 5, 0)).toMatchObject({
      ok: true,
      replayed: true,
      turn: 0,
      step: { content: 't0s1' },
    });
    expect(content(resolveStep(multi('error'), 0, 1))).toBe('t1s0');
    expect(resolveStep(multi('error'), 1, 1)).toEqual({ ok: false, turn: 1, stepCount: 1 });
    expect(resolveStep(multi('repeat-last'), 1, 1)).toMatchObject({ ok: true, replayed: true, turn: 1 });
    expect(resolveStep(multi('repeat-last'), 0, 7)).toMatchObject({
      ok: true,
      replayed: false,
      turn: 1,
      step: { content: 't1s0' },
    });
    expect(resolveStep(multi('error'), 1, 7)).toEqual({ ok: false, turn: 1, stepCount: 1 });
  });
});
