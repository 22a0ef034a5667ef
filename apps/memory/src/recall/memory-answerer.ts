import type { OpenAIStructuredOutput } from '@platform/llm';
import type { memoryV1 } from '@platform/proto';
import { MemoryAnswer } from '../extraction/extraction-schema.js';
import type { RecallEngine } from './recall-engine.js';

const SYSTEM_PROMPT = `You answer a question using only the memory items given (facts and episode summaries, each with an id).
Return JSON: {"answer": string, "answered": boolean, "citedIds": [ids of the items the answer rests on]}.
If the items do not answer the question, set answered to false, say that memory holds nothing on it, and cite nothing. Never cite an id that was not given.`;

/**
 * QueryMemory: recall for the question, then one structured model call that must cite the items
 * it used. Citations outside the recalled items are dropped (a model cannot point at facts it
 * was not shown, nor at another tenant's); with nothing recalled, no model is called at all.
 */
export class MemoryAnswerer {
  constructor(
    private readonly recall: RecallEngine,
    private readonly model: OpenAIStructuredOutput,
  ) {}

  async answer(
    tenantId: string,
    question: string,
    collectionPrefix: string,
    limit: number,
  ): Promise<memoryV1.QueryMemoryResponse> {
    const recalled = await this.recall.recall({
      tenantId,
      query: question,
      collectionPrefix,
      limit,
      tokenBudget: 0,
      conversationId: '',
      includeEpisodes: true,
    });
    const items = recalled.items.filter((i) => i.fact || i.episode);
    if (items.length === 0) {
      return {
        answer: 'Memory holds nothing about that.',
        answered: false,
        citedFactIds: [],
        citedEpisodeIds: [],
        facts: [],
        episodes: [],
        searchMode: recalled.searchMode,
      };
    }
    const byId = new Map(items.map((i) => [i.fact?.factId ?? i.episode!.episodeId, i]));
    const listing = items.map((i) => `${i.fact?.factId ?? i.episode!.episodeId}: ${i.text}`).join('\n');
    const reply = await this.model.complete({
      schemaName: 'memory_answer',
      schema: MemoryAnswer,
      system: SYSTEM_PROMPT,
      user: `MEMORY:\n${listing}\n\nQUESTION: ${question}`,
    });
    const cited = reply.citedIds.map((id) => byId.get(id)).filter((i) => i !== undefined);
    const facts = cited.flatMap((i) => (i.fact ? [i.fact] : []));
    const episodes = cited.flatMap((i) => (i.episode ? [i.episode] : []));
    return {
      answer: reply.answer,
      answered: reply.answered && cited.length > 0,
      citedFactIds: facts.map((f) => f.factId),
      citedEpisodeIds: episodes.map((e) => e.episodeId),
      facts,
      episodes,
      searchMode: recalled.searchMode,
    };
  }
}
