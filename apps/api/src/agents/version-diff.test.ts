import { describe, expect, it } from 'vitest';
import { diffJson } from './version-diff.js';

describe('diffJson', () => {
  it('names each changed leaf by its path, objects by key in order, arrays by index', () => {
    expect(
      diffJson(
        { name: 'a', labels: { team: 'x', 'app/tier': 'gold' }, tools: ['a', 'b'], loop: { maxTurns: 3 } },
        { name: 'a', labels: { team: 'y' }, tools: ['a', 'c', 'd'], memory: { recall: false } },
      ),
    ).toEqual([
      { path: 'labels["app/tier"]', op: 'remove', before: 'gold' },
      { path: 'labels.team', op: 'replace', before: 'x', after: 'y' },
      { path: 'loop', op: 'remove', before: { maxTurns: 3 } },
      { path: 'memory', op: 'add', after: { recall: false } },
      { path: 'tools[1]', op: 'replace', before: 'b', after: 'c' },
      { path: 'tools[2]', op: 'add', after: 'd' },
    ]);
  });

  it('replaces a value of another kind whole, and finds nothing between equal values', () => {
    expect(diffJson({ outputSchema: { type: 'object' } }, { outputSchema: ['x'] })).toEqual([
      { path: 'outputSchema', op: 'replace', before: { type: 'object' }, after: ['x'] },
    ]);
    expect(diffJson({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
    expect(diffJson({ a: null }, { a: 0 })).toEqual([{ path: 'a', op: 'replace', before: null, after: 0 }]);
  });
});
