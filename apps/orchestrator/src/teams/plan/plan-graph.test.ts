import { describe, expect, it } from 'vitest';
import { executionOrder, fillTemplates, findCycle, validatePlan } from './plan-graph.js';
import { extractJsonObject, parsePlanText, PlanSpec } from './plan-schema.js';
import { mermaidOf } from './plan-view.js';

const plan = (subtasks: Array<{ id: string; dependencies?: string[]; role?: string; tool?: string }>): PlanSpec =>
  PlanSpec.parse({ subtasks: subtasks.map((s) => ({ description: `do ${s.id}`, expectedOutput: 'x', ...s })) });
/** The worker may use web tools; the booker may use book_flight only. */
const toolsOf: Record<string, (tool: string) => boolean> = {
  worker: (t) => t.startsWith('web_'),
  booker: (t) => t === 'book_flight',
};
const options = {
  maxSubtasks: 20,
  roles: ['worker', 'booker'],
  executor: 'worker',
  mayUseTool: (role: string, tool: string) => toolsOf[role]?.(tool) ?? false,
};

describe('plan validation', () => {
  it("orders the seed's 3-subtask checkpoint by Kahn's algorithm", () => {
    const p = plan([{ id: 'summary', dependencies: ['facts', 'booking'] }, { id: 'facts' }, { id: 'booking' }]);
    expect(validatePlan(p, options)).toEqual({ ok: true, order: ['facts', 'booking', 'summary'] });
  });

  it('names a cycle found by the three-colour search, in the order work would flow', () => {
    const p = plan([
      { id: 'a', dependencies: ['c'] },
      { id: 'b', dependencies: ['a'] },
      { id: 'c', dependencies: ['b'] },
      { id: 'd' },
    ]);
    expect(findCycle(p)).toEqual(['a', 'b', 'c', 'a']);
    expect(validatePlan(p, options)).toMatchObject({
      ok: false,
      problem: { kind: 'cycle', message: 'the dependencies form a cycle: a → b → c → a' },
    });
    expect(executionOrder(p)).toEqual({
      ok: false,
      error: 'Cycle detected in dependency graph. Cannot compute topological order.',
    });
    expect(findCycle(plan([{ id: 'self', dependencies: ['self'] }]))).toEqual(['self', 'self']);
  });

  it('refuses unknown dependencies, repeated ids, unknown roles and over-decomposition', () => {
    expect(validatePlan(plan([{ id: 'a', dependencies: ['ghost'] }]), options)).toMatchObject({
      ok: false,
      problem: { kind: 'unknown_dependency', message: "subtask 'a' depends on 'ghost', which is not in the plan" },
    });
    expect(validatePlan(plan([{ id: 'a' }, { id: 'a' }]), options)).toMatchObject({
      ok: false,
      problem: { kind: 'duplicate_id' },
    });
    expect(validatePlan(plan([{ id: 'a', role: 'wizard' }]), options)).toMatchObject({
      ok: false,
      problem: { kind: 'unknown_role' },
    });
    const many = plan(Array.from({ length: 21 }, (_, i) => ({ id: `s${i}` })));
    expect(validatePlan(many, options)).toMatchObject({ ok: false, problem: { kind: 'over_decomposition' } });
  });

  it("refuses a subtask's tool that its role (or the executor, for a subtask naming no role) may not use", () => {
    expect(
      validatePlan(
        plan([
          { id: 'a', tool: 'web_search' },
          { id: 'b', role: 'booker', tool: 'book_flight' },
        ]),
        options,
      ),
    ).toMatchObject({ ok: true });
    expect(validatePlan(plan([{ id: 'a', tool: 'book_flight' }]), options)).toMatchObject({
      ok: false,
      problem: {
        kind: 'tool_not_allowed',
        message:
          "subtask 'a' names the tool 'book_flight', which the role 'worker' may not use: name another tool or another role",
      },
    });
    expect(validatePlan(plan([{ id: 'b', role: 'booker', tool: 'web_search' }]), options)).toMatchObject({
      ok: false,
      problem: { kind: 'tool_not_allowed' },
    });
  });

  it('counts subtasks before anything else', () => {
    const many = plan(Array.from({ length: 21 }, (_, i) => ({ id: `s${i}`, tool: 'not_allowed' })));
    expect(validatePlan(many, options)).toMatchObject({
      ok: false,
      problem: { kind: 'over_decomposition', message: expect.stringContaining('21 subtasks, more than 20') },
    });
  });
});

describe('reading a plan from the model', () => {
  it('reads JSON alone, fenced, or surrounded by text', () => {
    const json = '{"subtasks":[{"id":"a","description":"d {x}","expectedOutput":"e"}]}';
    expect(extractJsonObject(json)).toMatchObject({ subtasks: [{ id: 'a' }] });
    expect(extractJsonObject(`Sure!\n\`\`\`json\n${json}\n\`\`\`\nDone.`)).toMatchObject({ subtasks: [{ id: 'a' }] });
    expect(extractJsonObject(`Plan: ${json} -- that is all, "quoted {braces}" too`)).toMatchObject({
      subtasks: [{ id: 'a' }],
    });
    expect(parsePlanText(json)).toMatchObject({
      ok: true,
      plan: { subtasks: [{ id: 'a', dependencies: [], critical: false }] },
    });
  });

  it('says what is wrong with a reply that is not a plan', () => {
    expect(parsePlanText('I cannot plan this.')).toEqual({
      ok: false,
      error: expect.stringContaining('no JSON object'),
    });
    expect(parsePlanText('{"subtasks":[{"id":"a b","description":"d"}]}')).toEqual({
      ok: false,
      error: expect.stringMatching(/subtasks\.0\.id: .*subtasks\.0\.expectedOutput/),
    });
  });
});

describe('shared context templates', () => {
  it('fills {key} from the context, deeply, and lists the keys that are missing', () => {
    const filled = fillTemplates(
      { query: 'about {facts}', list: ['{facts}', '{later}'], n: 3, json: '{"a": 1}' },
      { facts: 'blue sky' },
    );
    expect(filled).toEqual({
      value: { query: 'about blue sky', list: ['blue sky', '{later}'], n: 3, json: '{"a": 1}' },
      missing: ['later'],
    });
  });
});

describe('Mermaid export', () => {
  it('draws each subtask with its status and each dependency as an edge, with labels Mermaid can read', () => {
    const text = mermaidOf([
      {
        id: 'a',
        description: '[scenario:x] find "facts" [fast]',
        expectedOutput: 'x',
        dependencies: [],
        critical: false,
        status: 'completed',
        attempts: 1,
        childRunIds: [],
      },
      {
        id: 'b',
        description: 'use {a}',
        expectedOutput: 'x',
        dependencies: ['a'],
        critical: false,
        status: 'blocked',
        attempts: 0,
        childRunIds: [],
      },
    ]);
    expect(text.split('\n').slice(0, 4)).toEqual([
      'flowchart TD',
      '  a["a: find facts fast"]:::completed',
      '  b["b: use a"]:::blocked',
      '  a --> b',
    ]);
  });
});
