import type { IngestedMessage } from '@platform/contracts';
import { StructuredOutputError, type OpenAIStructuredOutput } from '@platform/llm';
import { Extraction } from './extraction-schema.js';
import { renderTurnTranscript } from './turn-transcript.js';

/** A current fact shown to the extractor so it can judge what a new statement supersedes. */
export interface CandidateFact {
  factId: string;
  subject: string;
  predicate: string;
  object: string;
}

export interface ExtractorSettings {
  /** Model calls per turn while the answer does not validate. */
  attempts: number;
  toolResultChars: number;
}

/** The model kept answering with output that fails validation; nothing of the turn is stored. */
export class InvalidExtractionError extends Error {
  readonly code = 'INVALID_EXTRACTION';

  constructor(
    message: string,
    readonly attempts: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'InvalidExtractionError';
  }
}

const SYSTEM_PROMPT = `You extract long-term knowledge from one finished turn of a conversation between a user and an assistant.
Return JSON only, matching the schema:
- entities: people, places, organisations, products, events the turn mentions, with a type and facets (attributes). Set fromTool when an entity appears only in a tool result.
- facts: subject-predicate-object statements that stay true beyond this turn. Use "user" as the subject for the person talking. Predicates are lower snake case (lives_in, works_at, likes, has_pet). Give confidence 0..1 and sourceSeq, the [seq N] of the message stating it. Set singleValued when the subject can hold only one value of the predicate at a time (lives_in, works_at, name; not likes).
- preferences: what the user prefers (topic, value), with confidence and sourceSeq.
- supersedes: when a fact or preference makes one of the CURRENT FACTS no longer true, list that fact's id. Never invent ids.
- topics: a few short topic labels.
- episodeSummary: one or two sentences on what happened; empty when nothing is worth remembering.
Only extract what the user or a tool result actually established; ignore the assistant's guesses. Facts stated in tool results are not user facts unless the user confirmed them.`;

/**
 * Turns a finished turn into validated knowledge with one structured model call (retried with the
 * validation error as feedback). The answer is checked beyond its schema: every sourceSeq must be
 * one of the turn's messages and every superseded id one of the candidates given, so a model
 * cannot attach a fact to the wrong message or retire a fact it never saw.
 */
export class Extractor {
  constructor(
    private readonly model: OpenAIStructuredOutput,
    private readonly settings: ExtractorSettings,
  ) {}

  async extract(messages: readonly IngestedMessage[], candidates: readonly CandidateFact[], signal?: AbortSignal): Promise<Extraction> {
    const user = `CURRENT FACTS (id: subject predicate object):\n${candidates.map((c) => `${c.factId}: ${c.subject} ${c.predicate} ${c.object}`).join('\n') || '(none)'}\n\nTURN:\n${renderTurnTranscript(messages, this.settings.toolResultChars)}`;
    const seqs = new Set(messages.map((m) => m.seq));
    const candidateIds = new Set(candidates.map((c) => c.factId));
    let feedback: string | undefined;
    let last: Error | undefined;
    for (let attempt = 1; attempt <= this.settings.attempts; attempt++) {
      try {
        const extraction = await this.model.complete({ schemaName: 'memory_extraction', schema: Extraction, system: SYSTEM_PROMPT, user, signal, ...(feedback ? { feedback } : {}) });
        const problem = crossCheck(extraction, seqs, candidateIds);
        if (!problem) return extraction;
        last = new StructuredOutputError(problem, JSON.stringify(extraction));
      } catch (error) {
        if (!(error instanceof StructuredOutputError)) throw error;
        last = error;
      }
      feedback = last.message;
    }
    throw new InvalidExtractionError(`extraction output stayed invalid after ${this.settings.attempts} attempts: ${last?.message ?? 'unknown'}`, this.settings.attempts, { cause: last });
  }
}

function crossCheck(extraction: Extraction, seqs: ReadonlySet<number>, candidateIds: ReadonlySet<string>): string | undefined {
  for (const [i, item] of [...extraction.facts, ...extraction.preferences].entries()) {
    if (!seqs.has(item.sourceSeq)) return `item ${i}: sourceSeq ${item.sourceSeq} is not a message of this turn (${[...seqs].join(', ')})`;
    const unknown = item.supersedes.find((id) => !candidateIds.has(id));
    if (unknown !== undefined) return `item ${i}: supersedes "${unknown}", which is not one of the CURRENT FACTS`;
  }
  return undefined;
}
