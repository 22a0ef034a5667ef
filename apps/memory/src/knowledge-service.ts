import { CollectionName, ConversationId, RunId } from '@platform/contracts';
import { isModelError } from '@platform/agent-loop';
import { StructuredOutputError } from '@platform/llm';
import type { memoryV1 } from '@platform/proto';
import {
  callAbortSignal,
  errors,
  parseOrReject,
  PlatformError,
  tenantOf,
  unaryHandler,
  type Logger,
} from '@platform/service-kit';
import { z } from 'zod';
import { factToProto } from './knowledge/fact-rows.js';
import type { FactQueries } from './knowledge/fact-queries.js';
import type { FactSaver } from './knowledge/fact-saver.js';
import type { WorkingMemoryStore } from './knowledge/working-memory-store.js';
import type { MemoryAnswerer } from './recall/memory-answerer.js';
import type { RecallEngine } from './recall/recall-engine.js';
import { ErrorCodes } from './error-codes.js';

/** What the knowledge RPCs accept and return at most, compiled from the environment at boot (server.ts). */
export interface KnowledgeLimits {
  /** Memories one recall returns when the caller sets no limit, and the most it may ask for. */
  recallDefaultLimit: number;
  recallMaxLimit: number;
  /** The default page size (fact listings default to at most 100), and the most a caller may ask for. */
  pageSize: number;
  maxPageSize: number;
  /** Largest working-memory value, in bytes of JSON. */
  workingMemoryMaxValueBytes: number;
}

export interface KnowledgeDependencies {
  recall: RecallEngine;
  answerer: MemoryAnswerer;
  facts: FactQueries;
  saver: FactSaver;
  workingMemory: WorkingMemoryStore;
  limits: KnowledgeLimits;
  logger: Logger;
}

const prefixOf = (prefix: string): string =>
  prefix === '' ? '' : parseOrReject(CollectionName, prefix, ErrorCodes.INVALID_COLLECTION, 'collection_prefix');
const Text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const WorkingKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1-128 letters, digits, "_", ".", ":" or "-"');
const PageToken = z.object({ c: z.string(), f: z.string() });

function limitOf(limit: number, fallback: number, max: number): number {
  if (limit < 0 || limit > max)
    throw errors.invalidArgument(ErrorCodes.INVALID_LIMIT, `limit must be between 0 and ${max}`);
  return limit || fallback;
}

/**
 * Model failures in a request path are the model's, not the caller's nor ours: the provider's
 * trouble and an answer that cannot be read (after the structured-output retries) are both
 * UNAVAILABLE `MODEL_UNAVAILABLE` (docs/api.md, `/v1/memory/query`), worth a retry.
 */
function modelFailure(error: unknown): never {
  if (isModelError(error))
    throw errors.unavailable(ErrorCodes.MODEL_UNAVAILABLE, `the memory model could not answer: ${error.message}`, {
      cause: error,
    });
  if (error instanceof StructuredOutputError)
    throw errors.unavailable(
      ErrorCodes.MODEL_UNAVAILABLE,
      'the memory model gave an answer that could not be read; try again',
      {
        cause: error,
        retryAfterSeconds: 1,
      },
    );
  throw error;
}

/** The long-term knowledge and working-memory RPCs of MemoryService. */
/** The RPCs this file implements. */
export type KnowledgeRpcs = Pick<
  memoryV1.MemoryServiceServer,
  | 'recall'
  | 'queryMemory'
  | 'listFacts'
  | 'getFact'
  | 'saveFact'
  | 'deleteFact'
  | 'forgetSubject'
  | 'setWorkingMemory'
  | 'getWorkingMemory'
  | 'clearWorkingMemory'
>;

export function knowledgeServiceImplementation(deps: KnowledgeDependencies): KnowledgeRpcs {
  const { limits, logger } = deps;
  return {
    recall: unaryHandler<memoryV1.RecallRequest, memoryV1.RecallResponse>(logger, 'Recall', async (request, call) => {
      const tenantId = tenantOf(request);
      if (request.tokenBudget < 0)
        throw errors.invalidArgument(ErrorCodes.INVALID_TOKEN_BUDGET, 'token_budget must not be negative');
      return deps.recall.recall(
        {
          tenantId,
          query: parseOrReject(Text(8_000), request.query, ErrorCodes.INVALID_QUERY, 'query'),
          collectionPrefix: prefixOf(request.collectionPrefix),
          limit: limitOf(request.limit, limits.recallDefaultLimit, limits.recallMaxLimit),
          tokenBudget: request.tokenBudget,
          conversationId: request.conversationId
            ? parseOrReject(
                ConversationId,
                request.conversationId,
                ErrorCodes.INVALID_CONVERSATION_ID,
                'conversation_id',
              )
            : '',
          includeEpisodes: request.includeEpisodes,
        },
        callAbortSignal(call),
      );
    }),

    queryMemory: unaryHandler<memoryV1.QueryMemoryRequest, memoryV1.QueryMemoryResponse>(
      logger,
      'QueryMemory',
      async (request) => {
        const tenantId = tenantOf(request);
        const question = parseOrReject(Text(2_000), request.question, ErrorCodes.INVALID_QUESTION, 'question');
        const limit = limitOf(request.limit, limits.recallDefaultLimit, limits.recallMaxLimit);
        return deps.answerer.answer(tenantId, question, prefixOf(request.collectionPrefix), limit).catch(modelFailure);
      },
    ),

    listFacts: unaryHandler<memoryV1.ListFactsRequest, memoryV1.ListFactsResponse>(
      logger,
      'ListFacts',
      async (request) => {
        const tenantId = tenantOf(request);
        let after: { createdAt: string; factId: string } | undefined;
        if (request.pageToken) {
          try {
            const token = PageToken.parse(JSON.parse(Buffer.from(request.pageToken, 'base64url').toString('utf8')));
            after = { createdAt: token.c, factId: token.f };
          } catch {
            throw errors.invalidArgument(ErrorCodes.INVALID_PAGE_TOKEN, 'page_token is not one this service issued');
          }
        }
        const page = await deps.facts.list({
          tenantId,
          collectionPrefix: prefixOf(request.collectionPrefix),
          subject: request.subject
            ? parseOrReject(Text(200), request.subject, ErrorCodes.INVALID_SUBJECT, 'subject')
            : '',
          includeSuperseded: request.includeSuperseded,
          pageSize: limitOf(request.pageSize, Math.min(limits.pageSize, 100), limits.maxPageSize),
          after,
        });
        const last = page.facts.at(-1);
        const nextPageToken =
          page.hasMore && last
            ? Buffer.from(JSON.stringify({ c: last.created_at.toISOString(), f: last.fact_id })).toString('base64url')
            : '';
        return { facts: page.facts.map(factToProto), nextPageToken };
      },
    ),

    getFact: unaryHandler<memoryV1.GetFactRequest, memoryV1.GetFactResponse>(logger, 'GetFact', async (request) => {
      const fact = await deps.facts.get(tenantOf(request), request.factId);
      if (!fact) throw errors.notFound(ErrorCodes.FACT_NOT_FOUND, `no fact ${request.factId}`);
      return { fact: factToProto(fact) };
    }),

    saveFact: unaryHandler<memoryV1.SaveFactRequest, memoryV1.SaveFactResponse>(logger, 'SaveFact', async (request) => {
      const tenantId = tenantOf(request);
      if (request.confidence < 0 || request.confidence > 1)
        throw errors.invalidArgument(ErrorCodes.INVALID_CONFIDENCE, 'confidence must be between 0 and 1');
      if (request.kind !== '' && request.kind !== 'fact' && request.kind !== 'preference')
        throw errors.invalidArgument(ErrorCodes.INVALID_KIND, 'kind must be "fact" or "preference"');
      const written = await deps.saver.save({
        tenantId,
        collection: request.collection
          ? parseOrReject(CollectionName, request.collection, ErrorCodes.INVALID_COLLECTION, 'collection')
          : undefined,
        subject: parseOrReject(Text(200), request.subject, ErrorCodes.INVALID_SUBJECT, 'subject'),
        predicate: parseOrReject(Text(64), request.predicate, ErrorCodes.INVALID_PREDICATE, 'predicate'),
        object: parseOrReject(Text(500), request.object, ErrorCodes.INVALID_OBJECT, 'object'),
        kind: request.kind === 'preference' ? 'preference' : 'fact',
        confidence: request.confidence || 1,
        conversationId: request.conversationId
          ? parseOrReject(ConversationId, request.conversationId, ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id')
          : null,
        runId: request.runId ? parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id') : null,
        messageSeq: request.messageSeq > 0 ? request.messageSeq : null,
        tier: request.tier ?? '',
      });
      return {
        fact: factToProto(written.fact),
        supersededFactIds: written.supersededIds,
        duplicate: written.duplicate,
      };
    }),

    deleteFact: unaryHandler<memoryV1.DeleteFactRequest, memoryV1.DeleteFactResponse>(
      logger,
      'DeleteFact',
      async (request) => {
        const tenantId = tenantOf(request);
        const deleted = await deps.facts.delete(tenantId, request.factId, request.actor || 'unknown', request.reason);
        if (!deleted) throw errors.notFound(ErrorCodes.FACT_NOT_FOUND, `no fact ${request.factId}`);
        logger.info({ tenantId, factId: request.factId, auditId: deleted.auditId }, 'fact deleted');
        return { auditId: deleted.auditId };
      },
    ),

    forgetSubject: unaryHandler<memoryV1.ForgetSubjectRequest, memoryV1.ForgetSubjectResponse>(
      logger,
      'ForgetSubject',
      async (request) => {
        const tenantId = tenantOf(request);
        const subject = parseOrReject(Text(200), request.subject, ErrorCodes.INVALID_SUBJECT, 'subject');
        const done = await deps.facts.forgetSubject(
          tenantId,
          subject,
          prefixOf(request.collectionPrefix),
          request.actor || 'unknown',
          request.reason,
        );
        logger.info(
          { tenantId, auditId: done.auditId, facts: done.facts, entities: done.entities, episodes: done.episodes },
          'subject forgotten',
        );
        return {
          factsDeleted: done.facts,
          entitiesDeleted: done.entities,
          episodesDeleted: done.episodes,
          auditId: done.auditId,
        };
      },
    ),

    setWorkingMemory: unaryHandler<memoryV1.SetWorkingMemoryRequest, memoryV1.SetWorkingMemoryResponse>(
      logger,
      'SetWorkingMemory',
      async (request) => {
        const tenantId = tenantOf(request);
        const runId = parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id');
        const entries = request.entries.map((entry, i) => {
          const key = parseOrReject(WorkingKey, entry.key, ErrorCodes.INVALID_KEY, `entries[${i}].key`);
          if (entry.valueJson !== '') {
            if (Buffer.byteLength(entry.valueJson) > limits.workingMemoryMaxValueBytes)
              throw errors.invalidArgument(
                'VALUE_TOO_LARGE',
                `entries[${i}].value_json is larger than ${limits.workingMemoryMaxValueBytes} bytes`,
              );
            try {
              JSON.parse(entry.valueJson);
            } catch {
              throw errors.invalidArgument(ErrorCodes.INVALID_VALUE, `entries[${i}].value_json is not valid JSON`);
            }
          }
          return { key, valueJson: entry.valueJson };
        });
        const conversationId = request.conversationId
          ? parseOrReject(ConversationId, request.conversationId, ErrorCodes.INVALID_CONVERSATION_ID, 'conversation_id')
          : null;
        const size = await deps.workingMemory.set(tenantId, runId, conversationId, entries);
        if (size === 'too_many_keys')
          throw new PlatformError(
            'resource_exhausted',
            ErrorCodes.WORKING_MEMORY_FULL,
            "the run's working memory holds too many keys; delete some first",
          );
        return { size };
      },
    ),

    getWorkingMemory: unaryHandler<memoryV1.GetWorkingMemoryRequest, memoryV1.GetWorkingMemoryResponse>(
      logger,
      'GetWorkingMemory',
      async (request) => {
        const tenantId = tenantOf(request);
        const runId = parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id');
        const keys = request.keys.map((k, i) => parseOrReject(WorkingKey, k, ErrorCodes.INVALID_KEY, `keys[${i}]`));
        const entries = await deps.workingMemory.get(tenantId, runId, keys);
        return { entries: entries.map((e) => ({ key: e.key, valueJson: e.valueJson, updatedAt: e.updatedAt })) };
      },
    ),

    clearWorkingMemory: unaryHandler<memoryV1.ClearWorkingMemoryRequest, memoryV1.ClearWorkingMemoryResponse>(
      logger,
      'ClearWorkingMemory',
      async (request) => {
        const tenantId = tenantOf(request);
        const runId = parseOrReject(RunId, request.runId, ErrorCodes.INVALID_RUN_ID, 'run_id');
        return { cleared: await deps.workingMemory.clearRun(tenantId, runId) };
      },
    ),
  };
}
