import type { IngestedMessage } from '@platform/contracts';
import { StructuredOutputError, type OpenAIStructuredOutput } from '@platform/llm';
import { Extraction, MultiTurnEnvelope, MultiTurnExtraction, turnLabel } from './extraction-schema.js';
import { renderTurnTranscript } from './turn-transcript.js';
import { ErrorCodes } from '../error-codes.js';
import { NamedError } from '@platform/contracts';

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
export class InvalidExtractionError extends NamedError {
  readonly code = ErrorCodes.INVALID_EXTRACTION;

  constructor(
    message: string,
    readonly attempts: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/** What every extracted item is, shared by the one-turn and the several-turn prompts. */
const FIELDS = `- entities: people, places, organisations, products, events the turn mentions, with a type and facets (attributes). Set fromTool when an entity appears only in a tool result.
- facts: subject-predicate-object statements that stay true beyond this turn. Use "user" as the subject for the person talking. Predicates are lower snake case (lives_in, works_at, likes, has_pet). Give confidence 0..1 and sourceSeq, the [seq N] of the message stating it. Set singleValued when the subject can hold only one value of the predicate at a time (lives_in, works_at, name; not likes).
- preferences: what the user prefers (topic, value), with confidence and sourceSeq.
- supersedes: when a fact or preference makes one of the CURRENT FACTS no longer true, list that fact's id. Never invent ids.
- topics: a few short topic labels.
- episodeSummary: one or two sentences on what happened; empty when nothing is worth remembering.
Only extract what the user or a tool result actually established; ignore the assistant's guesses. Facts stated in tool results are not user facts unless the user confirmed them.`;

const SYSTEM_PROMPT = `You extract long-term knowledge from one finished turn of a conversation between a user and an assistant.
Return JSON only, matching the schema:
${FIELDS}`;

const MULTI_TURN_SYSTEM_PROMPT = `You extract long-term knowledge from several finished turns of conversations between users and an assistant.
The prompt holds one section per turn, headed "### TURN 1", "### TURN 2" and so on. Each section has its own CURRENT FACTS (the facts already known that this turn may contradict) and its own MESSAGES. The turns are independent: they may come from different conversations and their [seq N] numbers may repeat. Treat every section as if it were the only one: never carry a name, fact, preference or id from one turn into another turn's entry.
Return JSON only: {"turns": [...]} with exactly one entry per section, in the order given. Each entry has "turn", the section's label exactly as given (e.g. "TURN 2"), and the knowledge of that turn alone:
${FIELDS}
In an entry, sourceSeq is the [seq N] of a message of that same section, and supersedes lists ids from that same section's CURRENT FACTS only.`;

/** One turn as the extractor is given it: its messages and the current facts it may contradict. */
export interface TurnToExtract {
  messages: readonly IngestedMessage[];
  candidates: readonly CandidateFact[];
}

/** One turn's outcome of {@link Extractor.extractMany}: its validated knowledge, or why it has none. */
export type TurnExtraction = { ok: true; extraction: Extraction } | { ok: false; error: unknown };

const renderCandidates = (candidates: readonly CandidateFact[]): string =>
  `CURRENT FACTS (id: subject predicate object):\n${candidates.map((c) => `${c.factId}: ${c.subject} ${c.predicate} ${c.object}`).join('\n') || '(none)'}`;

/**
 * Turns a finished turn into validated knowledge with one structured model call (retried with the
 * validation error as feedback). The answer is checked beyond its schema: every sourceSeq must be
 * one of the turn's messages and every superseded id one of the candidates given, so a model
 * cannot attach a fact to the wrong message or retire a fact it never saw.
 *
 * Several turns (of one tenant and collection: the caller groups them) can share one call
 * ({@link extractMany}): the answer holds one entry per turn label, and each entry is validated and
 * cross-checked on its own against its own turn. A turn whose entry is missing or invalid is
 * extracted again alone; an answer that is not a list of entries at all is retried
 * (`attempts`), then every turn is extracted alone. A turn's knowledge is only ever used whole.
 */
export class Extractor {
  constructor(
    private readonly model: OpenAIStructuredOutput,
    private readonly settings: ExtractorSettings,
  ) {}

  async extract(
    messages: readonly IngestedMessage[],
    candidates: readonly CandidateFact[],
    signal?: AbortSignal,
  ): Promise<Extraction> {
    const user = `${renderCandidates(candidates)}\n\nTURN:\n${renderTurnTranscript(messages, this.settings.toolResultChars)}`;
    const seqs = new Set(messages.map((m) => m.seq));
    const candidateIds = new Set(candidates.map((c) => c.factId));
    let feedback: string | undefined;
    let last: Error | undefined;
    for (let attempt = 1; attempt <= this.settings.attempts; attempt++) {
      try {
        const extraction = await this.model.complete({
          schemaName: 'memory_extraction',
          schema: Extraction,
          system: SYSTEM_PROMPT,
          user,
          signal,
          ...(feedback ? { feedback } : {}),
        });
        const problem = crossCheck(extraction, seqs, candidateIds);
        if (!problem) return extraction;
        last = new StructuredOutputError(problem, JSON.stringify(extraction));
      } catch (error) {
        if (!(error instanceof StructuredOutputError)) throw error;
        last = error;
      }
      feedback = last.message;
    }
    throw new InvalidExtractionError(
      `extraction output stayed invalid after ${this.settings.attempts} attempts: ${last?.message ?? 'unknown'}`,
      this.settings.attempts,
      { cause: last },
    );
  }

  /**
   * Extracts several turns with one model call; the results are in the turns' order. One turn is
   * exactly {@link extract}. A transport or provider failure of the shared call fails every turn
   * with it (as it would have failed each of their own calls).
   */
  async extractMany(turns: readonly TurnToExtract[], signal?: AbortSignal): Promise<TurnExtraction[]> {
    if (turns.length === 1) return [await this.alone(turns[0]!, signal)];
    let parts: (Extraction | undefined)[];
    try {
      parts = await this.together(turns, signal);
    } catch (error) {
      if (!(error instanceof StructuredOutputError)) return turns.map(() => ({ ok: false, error }));
      parts = turns.map(() => undefined);
    }
    const results: TurnExtraction[] = [];
    for (const [i, turn] of turns.entries()) {
      const part = parts[i];
      results.push(part ? { ok: true, extraction: part } : await this.alone(turn, signal));
    }
    return results;
  }

  private async alone(turn: TurnToExtract, signal: AbortSignal | undefined): Promise<TurnExtraction> {
    try {
      return { ok: true, extraction: await this.extract(turn.messages, turn.candidates, signal) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /**
   * The shared call: each turn's valid part, or undefined for a turn whose part is missing,
   * repeated or invalid. Throws StructuredOutputError when no answer was a list of entries.
   */
  private async together(
    turns: readonly TurnToExtract[],
    signal: AbortSignal | undefined,
  ): Promise<(Extraction | undefined)[]> {
    const user = turns
      .map(
        (t, i) =>
          `### ${turnLabel(i + 1)}\n${renderCandidates(t.candidates)}\n\nMESSAGES:\n${renderTurnTranscript(t.messages, this.settings.toolResultChars)}`,
      )
      .join('\n\n');
    let feedback: string | undefined;
    let last: StructuredOutputError | undefined;
    for (let attempt = 1; attempt <= this.settings.attempts; attempt++) {
      try {
        const envelope = await this.model.complete({
          schemaName: 'memory_extraction_batch',
          schema: MultiTurnEnvelope,
          wireSchema: MultiTurnExtraction,
          system: MULTI_TURN_SYSTEM_PROMPT,
          user,
          signal,
          ...(feedback ? { feedback } : {}),
        });
        return turns.map((turn, i) => validPart(envelope, turnLabel(i + 1), turn));
      } catch (error) {
        if (!(error instanceof StructuredOutputError)) throw error;
        last = error;
      }
      feedback = last.message;
    }
    throw last ?? new StructuredOutputError('no answer', '');
  }
}

const normalLabel = (label: string): string => label.trim().replace(/\s+/g, ' ').toUpperCase();

/** A turn's entry of a multi-turn answer, when there is exactly one and it is valid and belongs to that turn. */
function validPart(envelope: MultiTurnEnvelope, label: string, turn: TurnToExtract): Extraction | undefined {
  const entries = envelope.turns.filter((e) => normalLabel(e.turn) === label);
  if (entries.length !== 1) return undefined;
  const { turn: _label, ...body } = entries[0]!;
  const parsed = Extraction.safeParse(body);
  if (!parsed.success) return undefined;
  const problem = crossCheck(
    parsed.data,
    new Set(turn.messages.map((m) => m.seq)),
    new Set(turn.candidates.map((c) => c.factId)),
  );
  return problem ? undefined : parsed.data;
}

function crossCheck(
  extraction: Extraction,
  seqs: ReadonlySet<number>,
  candidateIds: ReadonlySet<string>,
): string | undefined {
  for (const [i, item] of [...extraction.facts, ...extraction.preferences].entries()) {
    if (!seqs.has(item.sourceSeq))
      return `item ${i}: sourceSeq ${item.sourceSeq} is not a message of this turn (${[...seqs].join(', ')})`;
    const unknown = item.supersedes.find((id) => !candidateIds.has(id));
    if (unknown !== undefined) return `item ${i}: supersedes "${unknown}", which is not one of the CURRENT FACTS`;
  }
  return undefined;
}
