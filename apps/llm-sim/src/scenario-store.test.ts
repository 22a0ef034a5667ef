import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR, loadScenarioDirectory, ScenarioLoadError } from './scenario-store.js';
import { createLlmSim } from './server.js';
import { removeScenarioDirs, scenarioDir } from './test-support/sim.js';

const SHIPPED = [
  'approval-cancel',
  'approval-mixed',
  'auth-failure',
  'calculator',
  'capacity-calculator',
  'context-overflow',
  'counted-effect',
  'credential-inbox',
  'deletion-notes',
  'demo',
  'estimator-a',
  'estimator-b',
  'estimator-c',
  'gated-archive',
  'gated-mail',
  'leaked-token-name',
  'loop-forever',
  'malformed-tool-args',
  'mcp-echo',
  'memory-chat',
  'parallel-three',
  'plain',
  'plan-cycle',
  'plan-failing',
  'plan-invalid-structured',
  'plan-no-structured-output',
  'plan-remote',
  'plan-summarise',
  'plan-three',
  'rate-limit-once',
  'react-calculator',
  'server-error-fallback',
  'server-error-once',
  'slow',
  'slow-booking',
  'steer-booking',
  'stream-cut-once',
  'structured-fix',
  'structured-fix-slow',
  'structured-invalid-twice',
  'structured-refused',
  'structured-valid',
  'team-deeper',
  'team-lead-archive',
  'team-lead-book',
  'team-lead-committee',
  'team-lead-committee-user',
  'team-lead-deep',
  'team-lead-loop',
  'team-lead-parallel',
  'team-lead-reassign',
  'team-loop-back',
  'team-research',
  'travel-missing-field',
  'travel-trip',
  'two-emails',
  'unknown-tool',
];

afterAll(removeScenarioDirs);

function loadError(files: Record<string, string | object>): ScenarioLoadError {
  try {
    loadScenarioDirectory(scenarioDir(files));
  } catch (error) {
    if (error instanceof ScenarioLoadError) return error;
    throw error;
  }
  throw new Error('expected loading to fail');
}

describe('scenario store', () => {
  it('loads every shipped scenario', () => {
    const scenarios = loadScenarioDirectory(DEFAULT_SCENARIOS_DIR);
    expect([...scenarios.keys()].sort()).toEqual(SHIPPED);
    expect(scenarios.get('rate-limit-once')!.steps![0]!.fault).toEqual({
      kind: 'rate_limit',
      times: 1,
      retryAfterSeconds: 1,
    });
    expect(scenarios.get('malformed-tool-args')!.steps![0]!.toolCalls![0]!.arguments).toBe('{"expression": "1 +');
    const trip = scenarios.get('travel-trip')!;
    expect(trip.steps).toBeUndefined();
    expect(trip.turns!.map((t) => t.steps.length)).toEqual([3, 1]);
    expect(scenarios.get('travel-missing-field')!.toolReplies).toEqual({
      provide_fields: { description: expect.any(String) as unknown, arguments: { destination: 'NYC' } },
    });
    expect(Object.keys(scenarios.get('approval-mixed')!.toolReplies!)).toEqual(['record_approval_decisions']);
    expect(Object.keys(scenarios.get('approval-cancel')!.toolReplies!)).toEqual(['record_approval_decisions']);
  });

  it('accepts exactly one of steps and turns, and checks templates in turns and toolReplies', () => {
    const steps = [{ content: 'x' }];
    expect(loadError({ 'a.json': { name: 'a' } }).message).toMatch(
      /steps: a scenario needs exactly one of "steps" and "turns"/,
    );
    expect(loadError({ 'b.json': { name: 'b', steps, turns: [{ steps }] } }).message).toMatch(
      /exactly one of "steps" and "turns"/,
    );
    expect(loadError({ 'c.json': { name: 'c', turns: [] } }).message).toMatch(/turns/);
    expect(loadError({ 'd.json': { name: 'd', turns: [{ steps: [] }] } }).message).toMatch(/turns\.0\.steps/);
    expect(
      loadError({ 'e.json': { name: 'e', turns: [{ steps }, { steps: [{ content: '{{nope}}' }] }] } }).message,
    ).toMatch(/turns\.1\.steps\.0\.content: unknown template \{\{nope\}\}/);
    expect(
      loadError({ 'f.json': { name: 'f', steps, toolReplies: { pick: { arguments: { a: ['{{toolresult:x}}'] } } } } })
        .message,
    ).toMatch(/toolReplies\.pick\.arguments: unknown template/);
    expect(loadError({ 'g.json': { name: 'g', steps, toolReplies: { pick: { args: {} } } } }).message).toMatch(/args/);
    expect(loadError({ 'h.json': { name: 'h', turns: [{ steps, extra: 1 }] } }).message).toMatch(/extra/);
    const ok = loadScenarioDirectory(
      scenarioDir({
        'm.json': {
          name: 'm',
          turns: [{ steps }, { steps }],
          toolReplies: { pick: { arguments: { q: '{{userMessage}}' } }, raw: { arguments: '{' } },
        },
      }),
    ).get('m')!;
    expect(ok.toolReplies).toEqual({ pick: { arguments: { q: '{{userMessage}}' } }, raw: { arguments: '{' } });
  });

  it('names the file and the field of an invalid scenario', () => {
    const error = loadError({
      'good.json': { name: 'good', steps: [{ content: 'ok' }] },
      'broken.json': { name: 'broken', steps: [{ toolCalls: [{ arguments: {} }] }] },
    });
    expect(error.source).toMatch(/broken\.json$/);
    expect(error.message).toContain('broken.json');
    expect(error.message).toContain('steps.0.toolCalls.0.name');
  });

  it('rejects invalid JSON, unknown fields, empty steps, unknown templates and mismatched names', () => {
    expect(loadError({ 'a.json': '{ "name": "a", ' }).message).toMatch(/a\.json[\s\S]*not valid JSON/);
    expect(loadError({ 'b.json': { name: 'b', steps: [{ contnet: 'typo' }] } }).message).toMatch(/contnet/);
    expect(loadError({ 'c.json': { name: 'c', steps: [] } }).message).toMatch(/steps/);
    expect(loadError({ 'd.json': { name: 'd', steps: [{ content: '{{toolresult:x}}' }] } }).message).toMatch(
      /unknown template \{\{toolresult:x\}\}/,
    );
    expect(loadError({ 'e.json': { name: 'other', steps: [{ content: 'x' }] } }).message).toMatch(
      /must match the file name/,
    );
    expect(loadError({ 'f.json': { name: 'f', steps: [{ fault: { kind: 'auth' } }] } }).message).toMatch(
      /a step needs/,
    );
  });

  it('fails createLlmSim with the file name, and when the default scenario is missing', () => {
    const dir = scenarioDir({ 'bad.json': { name: 'bad', steps: [{ fault: { kind: 'teapot', times: 1 } }] } });
    expect(() => createLlmSim({ scenariosDir: dir })).toThrow(/bad\.json[\s\S]*steps\.0\.fault\.kind/);
    const good = scenarioDir({ 'only.json': { name: 'only', steps: [{ content: 'x' }] } });
    expect(() => createLlmSim({ scenariosDir: good })).toThrow(/default scenario "demo" not found; available: only/);
    expect(() => createLlmSim({ scenariosDir: '/nonexistent/llm-sim' })).toThrow(/cannot read scenarios directory/);
  });
});
