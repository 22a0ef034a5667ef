import { extractKnowledge, type SimExtraction } from './extract-knowledge.js';

/**
 * The deterministic "extraction model" for the memory service's several-turn request
 * (`memory_extraction_batch`): the prompt holds one section per turn, headed `### TURN <n>`, each
 * with its own `CURRENT FACTS` and messages, and the answer holds one entry per section, labelled
 * like it, with that section extracted exactly as a one-turn request would be.
 *
 * A marker in one section's text scripts how that turn's entry misbehaves (the others stay correct):
 * - `[memory-sim:invalid]` its entry breaks the schema (as a one-turn request with it does);
 * - `[memory-sim:invalid-in-batch]` its entry breaks the schema here, but a one-turn request is answered correctly;
 * - `[memory-sim:missing-in-batch]` the answer has no entry for it; a one-turn request is answered correctly.
 */

const BROKEN_ENTRY = {
  entities: [],
  facts: [{ subject: 'user', predicate: 'lives in?!', object: '', confidence: 7, sourceSeq: 0 }],
  preferences: [],
  topics: [],
  episodeSummary: '',
};

/** One turn's entry: its label and its extraction (or, on purpose, something the schema refuses). */
type SimTurnEntry = { turn: string } & (SimExtraction | typeof BROKEN_ENTRY);

export interface SimTurnsAnswer {
  turns: SimTurnEntry[];
  /** Labels of the turns whose entry is broken or left out on purpose. */
  misbehaving: string[];
}

const SECTION_HEADER = /^### (TURN \d+)[ \t]*$/gm;

/** The sections of a several-turn prompt, by label, in order (text before the first header is ignored). */
export function turnSectionsOf(prompt: string): { label: string; text: string }[] {
  const headers = [...prompt.matchAll(SECTION_HEADER)];
  return headers.map((header, i) => ({
    label: header[1] ?? '',
    text: prompt.slice((header.index ?? 0) + header[0].length, headers[i + 1]?.index ?? prompt.length),
  }));
}

/** Answers a `memory_extraction_batch` prompt: one entry per section, each extracted alone. */
export function extractTurns(prompt: string): SimTurnsAnswer {
  const answer: SimTurnsAnswer = { turns: [], misbehaving: [] };
  for (const { label, text } of turnSectionsOf(prompt)) {
    if (text.includes('[memory-sim:missing-in-batch]')) {
      answer.misbehaving.push(label);
      continue;
    }
    if (/\[memory-sim:invalid(?:-in-batch)?\]/.test(text)) {
      answer.misbehaving.push(label);
      answer.turns.push({ turn: label, ...BROKEN_ENTRY });
      continue;
    }
    answer.turns.push({ turn: label, ...extractKnowledge(text) });
  }
  return answer;
}
