import { COLLECTION_PATTERN } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError, parseInput } from '../http-errors.js';
import { principalOf } from '../principal.js';

export interface MemoryRoutesOptions {
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
}

/** A collection prefix: a whole collection name (`team:eng` covers `team:eng:*`), or empty for all. */
const CollectionPrefix = z.string().regex(COLLECTION_PATTERN, 'must be 1-8 ":"-separated segments of letters, digits, "_", ".", "@" or "-"');
const Subject = z.string().trim().min(1, 'must not be empty').max(200);
const Reason = z.string().max(500);

const QueryBody = z
  .object({
    question: z.string().trim().min(1, 'must not be empty').max(2_000),
    collectionPrefix: CollectionPrefix.optional(),
    /** Most facts and episodes given to the model (default: the memory service's). */
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();

const ListFactsQuery = z
  .object({
    collectionPrefix: CollectionPrefix.optional(),
    subject: Subject.optional(),
    includeSuperseded: z.enum(['true', 'false']).default('false'),
    pageSize: z.coerce.number().int().min(1).max(500).optional(),
    pageToken: z.string().min(1).max(1_000).optional(),
  })
  .strict();

const DeleteFactQuery = z.object({ reason: Reason.optional() }).strict();
const ForgetQuery = z.object({ collectionPrefix: CollectionPrefix.optional(), reason: Reason.optional() }).strict();

function factIdOf(params: unknown): string {
  const parsed = z.uuid().safeParse((params as { factId?: unknown }).factId);
  // A malformed id names no fact of any tenant: the same 404 as an unknown or another tenant's id.
  if (!parsed.success) throw new HttpError(404, 'FACT_NOT_FOUND', 'no such fact');
  return parsed.data;
}

const iso = (date: Date | undefined) => date?.toISOString() ?? null;

/** A fact as the API shows it. */
export function factJson(fact: memoryV1.Fact) {
  return {
    factId: fact.factId,
    collection: fact.collection,
    subject: fact.subject,
    predicate: fact.predicate,
    object: fact.object,
    kind: fact.kind,
    confidence: fact.confidence,
    current: fact.current,
    validFrom: iso(fact.validFrom),
    validTo: iso(fact.validTo),
    supersededBy: fact.supersededBy || null,
    source: {
      origin: fact.source?.origin ?? null,
      conversationId: fact.source?.conversationId || null,
      runId: fact.source?.runId || null,
      messageSeq: fact.source?.messageSeq || null,
    },
    createdAt: iso(fact.createdAt),
  };
}

function episodeJson(episode: memoryV1.Episode) {
  return {
    episodeId: episode.episodeId,
    collection: episode.collection,
    conversationId: episode.conversationId || null,
    kind: episode.kind,
    summary: episode.summary,
    topics: episode.topics,
    firstSeq: episode.firstSeq,
    lastSeq: episode.lastSeq,
    createdAt: iso(episode.createdAt),
  };
}

/** Long-term memory: ask it, list what it holds, delete a fact, forget a subject. Always the caller's tenant. */
export function registerMemoryRoutes(app: FastifyInstance, options: MemoryRoutesOptions): void {
  const { memory } = options;

  app.post('/v1/memory/query', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const body = parseInput(QueryBody, request.body, 'INVALID_BODY');
    const answer = await memory.queryMemory({ tenantId, question: body.question, collectionPrefix: body.collectionPrefix ?? '', limit: body.limit ?? 0 });
    return reply.send({
      answer: answer.answer,
      answered: answer.answered,
      citations: { facts: answer.facts.map(factJson), episodes: answer.episodes.map(episodeJson) },
      searchMode: answer.searchMode,
    });
  });

  app.get('/v1/memory/facts', async (request, reply) => {
    const { tenantId } = principalOf(request);
    const query = parseInput(ListFactsQuery, request.query, 'INVALID_QUERY');
    const page = await memory.listFacts({
      tenantId,
      collectionPrefix: query.collectionPrefix ?? '',
      subject: query.subject ?? '',
      includeSuperseded: query.includeSuperseded === 'true',
      pageSize: query.pageSize ?? 0,
      pageToken: query.pageToken ?? '',
    });
    return reply.send({ facts: page.facts.map(factJson), nextPageToken: page.nextPageToken || null });
  });

  app.delete('/v1/memory/facts/:factId', async (request, reply) => {
    const { tenantId, subject } = principalOf(request);
    const factId = factIdOf(request.params);
    const query = parseInput(DeleteFactQuery, request.query, 'INVALID_QUERY');
    const deleted = await memory.deleteFact({ tenantId, factId, actor: subject ?? tenantId, reason: query.reason ?? '' });
    return reply.send({ factId, deleted: true, auditId: deleted.auditId });
  });

  app.delete('/v1/memory/subjects/:subject', async (request, reply) => {
    const { tenantId, subject: actor } = principalOf(request);
    const subject = parseInput(Subject, (request.params as { subject?: unknown }).subject, 'INVALID_SUBJECT');
    const query = parseInput(ForgetQuery, request.query, 'INVALID_QUERY');
    const forgotten = await memory.forgetSubject({ tenantId, subject, collectionPrefix: query.collectionPrefix ?? '', actor: actor ?? tenantId, reason: query.reason ?? '' });
    return reply.send({
      subject,
      factsDeleted: forgotten.factsDeleted,
      entitiesDeleted: forgotten.entitiesDeleted,
      episodesDeleted: forgotten.episodesDeleted,
      auditId: forgotten.auditId,
    });
  });
}
