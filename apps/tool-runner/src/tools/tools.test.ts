import { describe, expect, it } from 'vitest';
import { ArithmeticEvaluator, ExpressionError } from './arithmetic.js';
import { currentTimeTool } from './current-time.js';
import { createLogger } from '@platform/service-kit';
import { callCredentials } from '@platform/tool-sdk';

const evaluator = new ArithmeticEvaluator(200);

describe('ArithmeticEvaluator', () => {
  it.each([
    ['(17 + 25) * 3', 126],
    ['12 * (3 + 4)', 84],
    ['2 ^ 10', 1024],
    ['-3 + +4', 1],
    ['sqrt(16) + abs(-2)', 6],
    ['round(pi * 100) / 100', 3.14],
    ['max(1, 7, 3) % 4', 3],
    ['1.5e3 / 3', 500],
  ])('evaluates %s', (expression, expected) => {
    expect(evaluator.evaluate(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ['x = 3', /assignment/],
    ['a + 1', /unknown name 'a'/],
    ['import({})', /not allowed/],
    ['evaluate("1+1")', /not allowed/],
    ['"text"', /only numbers/],
    ['[1, 2]', /not allowed/],
    ['5 cm', /unknown name 'cm'/],
    ['1 / 0', /finite/],
    ['f(x) = x', /not allowed/],
    ['1 +', /cannot parse/],
    ['2 == 2', /not allowed/],
  ])('refuses %s', (expression, message) => {
    expect(() => evaluator.evaluate(expression)).toThrow(ExpressionError);
    expect(() => evaluator.evaluate(expression)).toThrow(message);
  });

  it('refuses expressions over the length limit', () => {
    expect(() => new ArithmeticEvaluator(10).evaluate('1 + 1 + 1 + 1')).toThrow(/longer than 10/);
  });
});

describe('current_time', () => {
  const fixed = new Date('2026-11-21T22:30:00Z');
  const tool = currentTimeTool(() => fixed);
  const context = {
    tenantId: 't',
    conversationId: 'c',
    callId: 'x',
    runId: undefined,
    deadlineAt: Date.now() + 1000,
    signal: new AbortController().signal,
    logger: createLogger({ service: 'test', level: 'silent' }),
    credentials: callCredentials(undefined, { tenantId: 't', callId: 'x', declared: [], grant: undefined }),
  };

  it('renders local time and offset for an IANA zone', async () => {
    expect(await tool.handler({ timezone: 'Asia/Tokyo' }, context)).toEqual({
      timezone: 'Asia/Tokyo',
      iso: '2026-11-21T22:30:00.000Z',
      local: '2026-11-22 07:30:00 (Sunday)',
      utcOffset: '+09:00',
    });
  });

  it('defaults to UTC', async () => {
    expect(await tool.handler({}, context)).toMatchObject({
      timezone: 'UTC',
      utcOffset: '+00:00',
      local: '2026-11-21 22:30:00 (Saturday)',
    });
  });

  it('rejects unknown zones with a hint', async () => {
    await expect(tool.handler({ timezone: 'Mars/Olympus' }, context)).rejects.toThrow(/not a known IANA time zone/);
  });
});
