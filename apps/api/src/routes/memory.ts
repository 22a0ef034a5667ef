import { COLLECTION_PATTERN } from '@platform/contracts';
import type { memoryV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';
import { OptionalTimestamp } from '../openapi/common-schemas.js';
import { defineOperation } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { principalOf } from '../principal.js';
import { ApiErrorCodes } from '../error-codes.js';

export interface MemoryRoutesOptions {
  memory: PromiseClient<memoryV1.MemoryServiceClient>;
}

/** A collection prefix: a whole collection name (`team:eng` covers `team:eng:*`), or empty for all. */
const CollectionPrefix = z
  .string()
  .regex(COLLECTION_PATTERN, 'must be 1-8 ":"-separated segments of letters, digits, "_", ".", "@" or "-"');
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

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/** A fact as the API shows it: what, since when, superseded by what, and where it came from. */
const Fact = z
  .object({
    factId: z.string(),
    collection: z.string(),
    subject: z.string(),
    predicate: z.string(),
    object: z.string(),
    kind: z.string(),
    confidence: z.number(),
    current: z.boolean(),
    validFrom: OptionalTimestamp,
    validTo: OptionalTimestamp,
    supersededBy: z.string().nullable(),
    source: z.object({
      origin: z.string().nullable(),
      conversationId: z.string().nullable(),
      runId: z.string().nullable(),
      messageSeq: z.number().int().nullable(),
    }),
    createdAt: OptionalTimestamp,
  })
  .meta({ id: 'Fact' });

const Episode = z.object({
  episodeId: z.string(),
  collection: z.string(),
  conversationId: z.string().nullable(),
  kind: z.string(),
  summary: z.string(),
  topics: z.array(z.string()),
  firstSeq: z.number().int(),
  lastSeq: z.number().int(),
  createdAt: OptionalTimestamp,
});

const FACT_EXAMPLE: z.infer<typeof Fact> = {
  factId: '6f1c1a52-4c8e-4a37-9d1e-0d7d3c1b2a11',
  collection: 'user:alice',
  subject: 'alice',
  predicate: 'prefers',
  object: 'window seats',
  kind: 'preference',
  confidence: 0.9,
  current: true,
  validFrom: '2026-06-01T09:30:00.000Z',
  validTo: null,
  supersededBy: null,
  source: { origin: 'extracted', conversationId: 'conv-1', runId: 'run_1', messageSeq: 3 },
  createdAt: '2026-06-01T09:30:00.000Z',
};

export const memoryOperations = {
  queryMemory: defineOperation({
    method: 'POST',
    path: '/v1/memory/query',
    operationId: 'queryMemory',
    summary: 'Ask long-term memory a question; the answer cites facts and episodes',
    tags: ['memory'],
    access: 'tenant',
    role: 'viewer',
    body: QueryBody,
    bodyExamples: { seat: { question: 'Which seat does Alice prefer?' } },
    responses: {
      200: {
        description: 'The answer with its citations.',
        body: z.object({
          answer: z.string(),
          answered: z.boolean(),
          citations: z.object({ facts: z.array(Fact), episodes: z.array(Episode) }),
          searchMode: z.string(),
        }),
        examples: {
          answered: {
            answer: 'A window seat.',
            answered: true,
            citations: { facts: [FACT_EXAMPLE], episodes: [] },
            searchMode: 'hybrid',
          },
        },
      },
    },
    errors: { 503: ['MODEL_UNAVAILABLE', 'UNAVAILABLE'] },
  }),
  listFacts: defineOperation({
    method: 'GET',
    path: '/v1/memory/facts',
    operationId: 'listFacts',
    summary: 'Facts memory holds, with provenance (superseded ones on request)',
    tags: ['memory'],
    access: 'tenant',
    role: 'viewer',
    query: ListFactsQuery,
    responses: {
      200: {
        description: 'A page of facts.',
        body: z.object({ facts: z.array(Fact), nextPageToken: z.string().nullable() }),
        examples: { page: { facts: [FACT_EXAMPLE], nextPageToken: null } },
      },
    },
    errors: { 400: ['INVALID_PAGE_TOKEN'] },
  }),
  deleteFact: defineOperation({
    method: 'DELETE',
    path: '/v1/memory/facts/{factId}',
    operationId: 'deleteFact',
    summary: 'Delete one fact (audited)',
    tags: ['memory'],
    access: 'tenant',
    role: 'admin',
    // A malformed id names no fact of any tenant: the same 404 as an unknown or another tenant's id.
    params: z.object({ factId: z.uuid() }),
    query: DeleteFactQuery,
    invalid: { params: { status: 404, code: ApiErrorCodes.FACT_NOT_FOUND, message: 'no such fact' } },
    responses: {
      200: {
        description: 'Deleted.',
        body: z.object({ factId: z.string(), deleted: z.literal(true), auditId: z.string() }),
        examples: { deleted: { factId: FACT_EXAMPLE.factId, deleted: true, auditId: 'audit_1' } },
      },
    },
    errors: { 404: ['FACT_NOT_FOUND'] },
  }),
  forgetSubject: defineOperation({
    method: 'DELETE',
    path: '/v1/memory/subjects/{subject}',
    operationId: 'forgetSubject',
    summary: 'Forget everything memory holds about a subject (audited)',
    tags: ['memory'],
    access: 'tenant',
    role: 'admin',
    params: z.object({ subject: Subject }),
    query: ForgetQuery,
    invalid: { params: { code: ApiErrorCodes.INVALID_SUBJECT } },
    responses: {
      200: {
        description: 'What was forgotten.',
        body: z.object({
          subject: z.string(),
          factsDeleted: z.number().int(),
          entitiesDeleted: z.number().int(),
          episodesDeleted: z.number().int(),
          auditId: z.string(),
        }),
        examples: {
          forgotten: { subject: 'alice', factsDeleted: 3, entitiesDeleted: 1, episodesDeleted: 0, auditId: 'audit_2' },
        },
      },
    },
  }),
};

/** A fact as the API shows it. */
function factJson(fact: memoryV1.Fact): z.infer<typeof Fact> {
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

function episodeJson(episode: memoryV1.Episode): z.infer<typeof Episode> {
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
export function registerMemoryRoutes(router: OperationRouter, options: MemoryRoutesOptions): void {
  const { memory } = options;

  router.add(memoryOperations.queryMemory, async ({ body, request }) => {
    const { tenantId } = principalOf(request);
    const answer = await memory.queryMemory({
      tenantId,
      question: body.question,
      collectionPrefix: body.collectionPrefix ?? '',
      limit: body.limit ?? 0,
    });
    return {
      status: 200,
      body: {
        answer: answer.answer,
        answered: answer.answered,
        citations: { facts: answer.facts.map(factJson), episodes: answer.episodes.map(episodeJson) },
        searchMode: answer.searchMode,
      },
    };
  });

  router.add(memoryOperations.listFacts, async ({ query, request }) => {
    const { tenantId } = principalOf(request);
    const page = await memory.listFacts({
      tenantId,
      collectionPrefix: query.collectionPrefix ?? '',
      subject: query.subject ?? '',
      includeSuperseded: query.includeSuperseded === 'true',
      pageSize: query.pageSize ?? 0,
      pageToken: query.pageToken ?? '',
    });
    return { status: 200, body: { facts: page.facts.map(factJson), nextPageToken: page.nextPageToken || null } };
  });

  router.add(memoryOperations.deleteFact, async ({ params, query, request }) => {
    const { tenantId, subject } = principalOf(request);
    const deleted = await memory.deleteFact({
      tenantId,
      factId: params.factId,
      actor: subject ?? tenantId,
      reason: query.reason ?? '',
    });
    return { status: 200, body: { factId: params.factId, deleted: true, auditId: deleted.auditId } };
  });

  router.add(memoryOperations.forgetSubject, async ({ params, query, request }) => {
    const { tenantId, subject: actor } = principalOf(request);
    const forgotten = await memory.forgetSubject({
      tenantId,
      subject: params.subject,
      collectionPrefix: query.collectionPrefix ?? '',
      actor: actor ?? tenantId,
      reason: query.reason ?? '',
    });
    return {
      status: 200,
      body: {
        subject: params.subject,
        factsDeleted: forgotten.factsDeleted,
        entitiesDeleted: forgotten.entitiesDeleted,
        episodesDeleted: forgotten.episodesDeleted,
        auditId: forgotten.auditId,
      },
    };
  });
}
