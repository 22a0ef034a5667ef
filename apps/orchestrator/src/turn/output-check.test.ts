import { DEFAULT_LOOP_CONFIG } from '@platform/agent-loop';
import type { ChatMessage } from '@platform/contracts';
import { createLogger } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import type { RunnableAgent } from '../profiles.js';
import { OutputSchemas } from '../structured/output-schemas.js';
import { claimedRun } from '../test-support/run-fixtures.js';
import type { PreparedTurn } from './context.js';
import { OutputCheckStep, schemaInstruction, type CheckedTurn } from './output-check.js';
import { TurnResult } from './turn-steps.js';

const logger = createLogger({ service: 'test', level: 'silent' });
const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};
const input: ChatMessage[] = [
  { role: 'system', content: 'You report the weather.' },
  { role: 'user', content: 'Berlin?' },
];

function turn(profile: Partial<RunnableAgent>, run: Parameters<typeof claimedRun>[2] = {}): PreparedTurn {
  return {
    attempt: { run: claimedRun('weather', 'Berlin?', run) },
    profile: { name: 'weather', structuredOutput: true, loopConfig: DEFAULT_LOOP_CONFIG, ...profile },
    input,
  } as unknown as PreparedTurn;
}

const checker = new OutputCheckStep({ schemas: new OutputSchemas(), retries: 1, logger });
const step = {
  run: async (turn: PreparedTurn): Promise<CheckedTurn> => {
    const checked = await checker.run(turn);
    if (checked instanceof TurnResult) throw new Error('the step ended the turn');
    return checked;
  },
};

describe('the output check step', () => {
  it('leaves a run without an output schema as it is', async () => {
    const plain = turn({});
    expect(await step.run(plain)).toBe(plain);
  });

  it("asks for structured output with the run's schema (strict when it allows), the run's winning over the profile's", async () => {
    const checked = await step.run(turn({ outputSchema: { type: 'string' } }, { outputSchema: weather }));
    expect(checked.answer?.responseFormat).toEqual({
      type: 'json_schema',
      name: 'output',
      schema: weather,
      strict: true,
    });
    expect(checked.input).toBe(input);
    const loose = await step.run(turn({ outputSchema: { type: 'object' } }));
    expect(loose.answer?.responseFormat).toMatchObject({ schema: { type: 'object' }, strict: false });
  });

  it('accepts a valid answer as the output, retries once with the errors, then refuses', async () => {
    const { answer } = await step.run(turn({ outputSchema: weather }));
    expect(await answer!.check({ content: '```json\n{"city":"Berlin","celsius":21}\n```', refused: 0 })).toEqual({
      accept: true,
      output: { city: 'Berlin', celsius: 21 },
    });
    const first = await answer!.check({ content: '{"city":"Berlin"}', refused: 0 });
    expect(first).toMatchObject({
      accept: false,
      retry: true,
      issues: [{ path: '', message: "(root) must have required property 'celsius'" }],
    });
    expect(first.accept === false && first.feedback).toContain("must have required property 'celsius'");
    expect(await answer!.check({ content: 'It is sunny.', refused: 1 })).toMatchObject({
      accept: false,
      retry: false,
      issues: [{ path: '', message: expect.stringContaining('not JSON') }],
    });
  });

  it("without structured output, puts the schema in a first attempt's instructions, and not again on a resumed one", async () => {
    const first = await step.run(turn({ outputSchema: weather, structuredOutput: false }));
    expect(first.answer?.responseFormat).toBeUndefined();
    expect(first.input[0]).toEqual({
      role: 'system',
      content: `You report the weather.\n\n${schemaInstruction(weather)}`,
    });
    expect(first.input.slice(1)).toEqual(input.slice(1));
    // A resumed attempt's input is its journaled one, which has the instructions already.
    const resumed = await step.run(turn({ outputSchema: weather, structuredOutput: false }, { input, attempts: 2 }));
    expect(resumed.input).toBe(input);
    expect(resumed.answer).toBeDefined();
  });

  it('ends the turn with invalid_output when the stored schema no longer compiles, rather than answer unchecked', async () => {
    const stricter = new OutputCheckStep({
      schemas: new OutputSchemas({ maxChars: 10, cacheEntries: 1, maxIssues: 1 }),
      retries: 1,
      logger,
    });
    const ended = await stricter.run(turn({}, { outputSchema: weather }));
    expect(ended).toBeInstanceOf(TurnResult);
    expect((ended as TurnResult).result).toMatchObject({
      stopReason: 'invalid_output',
      error: { kind: 'output_schema', message: expect.stringContaining('no longer compiles') },
    });
  });
});
