import { describe, expect, it } from 'vitest';
import { extractTurns, turnSectionsOf } from './extract-turns.js';

const section = (n: number, facts: string, ...lines: string[]) =>
  `### TURN ${n}\nCURRENT FACTS (id: subject predicate object):\n${facts}\n\nMESSAGES:\n${lines.join('\n')}`;

describe('extractTurns', () => {
  it('extracts every section on its own: its own seqs, its own candidates superseded', () => {
    const prompt = [
      section(
        1,
        'f-paris: user lives_in Paris',
        '[seq 3] user: I moved from Paris to Berlin.',
        '[seq 4] assistant: Noted, you live in Rome.',
      ),
      section(2, 'f-acme: user works_at Acme', '[seq 3] user: I work at Initech.'),
      section(3, '(none)', '[seq 1] user: hello'),
    ].join('\n\n');
    const { turns, misbehaving } = extractTurns(prompt);
    expect(misbehaving).toEqual([]);
    expect(turns.map((t) => t.turn)).toEqual(['TURN 1', 'TURN 2', 'TURN 3']);
    expect(turns[0]!.facts).toEqual([
      expect.objectContaining({ predicate: 'lives_in', object: 'Berlin', sourceSeq: 3, supersedes: ['f-paris'] }),
    ]);
    expect(turns[1]!.facts).toEqual([
      expect.objectContaining({ predicate: 'works_at', object: 'Initech', sourceSeq: 3, supersedes: ['f-acme'] }),
    ]);
    expect(turns[2]!.facts).toEqual([]);
    expect(turns[2]!.episodeSummary).toBe('The user said: hello');
  });

  it('breaks or leaves out only the entry of the turn whose text carries the marker', () => {
    const prompt = [
      section(1, '(none)', '[seq 1] user: I live in Oslo [memory-sim:invalid-in-batch]'),
      section(2, '(none)', '[seq 1] user: I live in Rome'),
      section(3, '(none)', '[seq 1] user: I live in Lima [memory-sim:missing-in-batch]'),
      section(4, '(none)', '[seq 1] user: I live in Kyiv [memory-sim:invalid]'),
    ].join('\n\n');
    const { turns, misbehaving } = extractTurns(prompt);
    expect(misbehaving).toEqual(['TURN 1', 'TURN 3', 'TURN 4']);
    expect(turns.map((t) => t.turn)).toEqual(['TURN 1', 'TURN 2', 'TURN 4']);
    expect(turns[0]!.facts?.[0]).toMatchObject({ confidence: 7, sourceSeq: 0 });
    expect(turns[1]!.facts?.[0]).toMatchObject({ object: 'Rome', sourceSeq: 1 });
    expect(turns[2]!.facts?.[0]).toMatchObject({ confidence: 7 });
  });

  it('reads no section from a prompt without headers', () => {
    expect(turnSectionsOf('CURRENT FACTS (id: subject predicate object):\n(none)\n\nTURN:\n[seq 1] user: hi')).toEqual(
      [],
    );
  });
});
