import { describe, expect, it } from 'vitest';
import {
  MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX,
  ModelConnectionChanged,
  ModelConnectionName,
  modelConnectionChangedSubject,
} from './model-connections.js';

describe('model connection contracts', () => {
  it('gives every tenant and name its own change subject of exactly two tokens', () => {
    const subjects = [
      modelConnectionChangedSubject('a.b', 'c'),
      modelConnectionChangedSubject('a', 'b.c'),
      modelConnectionChangedSubject('acme', 'llm'),
      modelConnectionChangedSubject('globex', 'llm'),
    ];
    expect(new Set(subjects).size).toBe(subjects.length);
    for (const subject of subjects) {
      expect(subject.startsWith(`${MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX}.`)).toBe(true);
      const tokens = subject.slice(MODEL_CONNECTION_CHANGED_SUBJECT_PREFIX.length + 1).split('.');
      expect(tokens).toHaveLength(2);
      for (const token of tokens) expect(token).toMatch(/^[!-~]+$/);
      expect(subject).not.toMatch(/[*> ]/);
    }
  });

  it('accepts names like agent names and refuses the rest', () => {
    for (const name of ['acme-llm', 'a', 'gpt.4_o-mini', 'x'.repeat(64)])
      expect(ModelConnectionName.safeParse(name).success, name).toBe(true);
    for (const name of ['', '-a', '.a', 'a b', 'a/b', 'x'.repeat(65), 'é'])
      expect(ModelConnectionName.safeParse(name).success, name).toBe(false);
  });

  it('parses change notices strictly', () => {
    expect(ModelConnectionChanged.safeParse({ tenantId: 'acme', name: 'llm' }).success).toBe(true);
    expect(ModelConnectionChanged.safeParse({ tenantId: 'acme' }).success).toBe(false);
    expect(ModelConnectionChanged.safeParse({ tenantId: 'acme', name: 'llm', apiKey: 'x' }).success).toBe(false);
  });
});
