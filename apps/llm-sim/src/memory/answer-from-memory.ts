import { wordsOf } from '../embedding-vectors.js';
import { turnLinesOf } from './turn-lines.js';

/**
 * Deterministic answers to the memory service's other structured requests: a question answered
 * from the facts listed in the prompt (`memory_answer`: answer, answered, citedIds), and a
 * session summary (`session_summary`: summary, topics).
 */

export interface SimMemoryAnswer {
  answer: string;
  answered: boolean;
  citedIds: string[];
}

/** A fact or episode offered in the prompt: `<id>: text`, `[<id>] text` or `- [<id>] text`. */
interface Offered {
  id: string;
  text: string;
}

const OFFERED_LINE = /^(?:[-*]\s*)?(?:\[([A-Za-z0-9_:-]{1,100})\]|([A-Za-z0-9_-]{6,100}):)\s+(\S.*)$/;
const STOP_WORDS = new Set([
  'the',
  'a',
  'an',
  'is',
  'are',
  'was',
  'does',
  'do',
  'did',
  'what',
  'where',
  'who',
  'when',
  'which',
  'how',
  'of',
  'to',
  'in',
  'on',
  'at',
  'for',
  'and',
  'or',
  'my',
  'me',
  'i',
  'you',
  'your',
  'user',
  'about',
  'with',
  'now',
]);

// Words match on their first four letters, so "live", "lives" and "lives_in" meet.
const stem = (word: string) => word.slice(0, 4);
const keyWords = (text: string) =>
  new Set(
    wordsOf(text.replace(/_/g, ' '))
      .filter((w) => !STOP_WORDS.has(w))
      .map(stem),
  );

/** The question: the text after a `QUESTION:` label, else the last line ending with `?`, else the last line. */
export function questionOf(prompt: string): string {
  const labelled = /^QUESTION:\s*(.+)$/im.exec(prompt)?.[1];
  if (labelled) return labelled.trim();
  const lines = prompt
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.findLast((l) => l.endsWith('?')) ?? lines.at(-1) ?? '';
}

function offeredOf(prompt: string): Offered[] {
  const offered: Offered[] = [];
  for (const line of prompt.split('\n')) {
    const match = OFFERED_LINE.exec(line.trim());
    const id = match?.[1] ?? match?.[2];
    if (id && match?.[3] && !/^QUESTION$/i.test(id)) offered.push({ id, text: match[3] });
  }
  return offered;
}

/** Renders `user lives_in Berlin (since …)` as `user lives in Berlin (since …)`. */
const readable = (text: string) => text.replace(/\b([a-z]+(?:_[a-z0-9]+)+)\b/g, (w) => w.replace(/_/g, ' '));

/**
 * Answers with the offered items that share the most key words with the question (all items tied
 * for best), citing them; answered is false when none shares a word.
 */
export function answerFromMemory(prompt: string): SimMemoryAnswer {
  const question = keyWords(questionOf(prompt));
  const scored = offeredOf(prompt)
    .map((item) => ({ item, score: [...keyWords(item.text)].filter((w) => question.has(w)).length }))
    .filter((s) => s.score > 0);
  const best = Math.max(0, ...scored.map((s) => s.score));
  const cited = scored.filter((s) => s.score === best).map((s) => s.item);
  if (cited.length === 0) return { answer: 'Memory holds nothing about that.', answered: false, citedIds: [] };
  return {
    answer: `From memory: ${cited.map((c) => readable(c.text)).join('; ')}.`,
    answered: true,
    citedIds: cited.map((c) => c.id),
  };
}

/** A summary of a session transcript: what the user said, and a few topic words. */
export function summariseSession(prompt: string): { summary: string; topics: string[] } {
  const said = turnLinesOf(prompt)
    .filter((l) => l.role === 'user')
    .map((l) => l.text.trim())
    .filter(Boolean);
  const text = said.length > 0 ? said.join(' ') : prompt.trim();
  const summary = `Session summary: ${text.length > 400 ? `${text.slice(0, 399)}…` : text || 'nothing was said.'}`;
  const counts = new Map<string, number>();
  for (const word of wordsOf(text))
    if (word.length > 3 && !STOP_WORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const topics = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([w]) => w);
  return { summary, topics };
}
