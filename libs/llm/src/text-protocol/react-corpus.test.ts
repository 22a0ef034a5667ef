import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseReActReply } from './react-parser.js';
import type { ReActReply } from './react-reply.js';

type Expected =
  | { kind: 'action'; tool: string; arguments: Record<string, unknown> }
  | { kind: 'final'; answer: string }
  | { kind: 'error' };

interface CorpusCase {
  id: string;
  /** Which model or prompt style the habit comes from. */
  source: string;
  text: string;
  expected: Expected;
}

const corpus = JSON.parse(
  readFileSync(new URL('./corpus/react-outputs.json', import.meta.url), 'utf8'),
) as CorpusCase[];
const REQUIRED_SHARE = 0.95;

function matches(reply: ReActReply, expected: Expected): boolean {
  if (reply.kind !== expected.kind) return false;
  if (reply.kind === 'action' && expected.kind === 'action')
    return reply.tool === expected.tool && isDeepStrictEqual(reply.arguments, expected.arguments);
  if (reply.kind === 'final' && expected.kind === 'final') return reply.answer === expected.answer;
  return true;
}

function summary(reply: ReActReply): string {
  if (reply.kind === 'action') return `action ${reply.tool} ${JSON.stringify(reply.arguments)}`;
  if (reply.kind === 'final') return `final ${JSON.stringify(reply.answer)}`;
  return `error ${reply.error.code}: ${reply.error.message}`;
}

describe('ReAct reply corpus', () => {
  it('has enough varied cases', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(120);
    expect(new Set(corpus.map((c) => c.id)).size).toBe(corpus.length);
    for (const kind of ['action', 'final', 'error']) expect(corpus.some((c) => c.expected.kind === kind)).toBe(true);
  });

  it(`parses at least ${REQUIRED_SHARE * 100}% of the corpus as expected`, () => {
    const failures = corpus.flatMap((c) => {
      const reply = parseReActReply(c.text);
      return matches(reply, c.expected)
        ? []
        : [`${c.id} (${c.source}): expected ${JSON.stringify(c.expected)}, got ${summary(reply)}`];
    });
    const share = (corpus.length - failures.length) / corpus.length;
    const report = `text protocol corpus: ${corpus.length - failures.length}/${corpus.length} parsed as expected (${(share * 100).toFixed(1)}%)`;
    // eslint-disable-next-line no-console -- the measured figure, and every miss, is this test's output.
    console.info(failures.length ? `${report}\nfailures:\n${failures.join('\n')}` : report);
    expect(share).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });

  it('never throws, whatever the text', () => {
    for (const c of corpus) {
      for (let cut = 0; cut <= c.text.length; cut += 7)
        expect(() => parseReActReply(c.text.slice(0, cut))).not.toThrow();
    }
  });
});
