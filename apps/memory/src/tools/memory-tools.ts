import { CollectionName } from '@platform/contracts';
import { isPlatformError, type Logger, type NatsConnection } from '@platform/service-kit';
import {
  defineTool,
  serveRunner,
  ToolFailure,
  type ToolContext,
  type ToolDefinition,
  type ToolRunner,
} from '@platform/tool-sdk';
import { z } from 'zod';
import type { FactSaver } from '../knowledge/fact-saver.js';
import type { WorkingMemoryStore } from '../knowledge/working-memory-store.js';
import type { RecallEngine } from '../recall/recall-engine.js';
import { ErrorCodes } from '../error-codes.js';

const MEMORY_RUNNER_NAME = 'memory-tools';

export interface MemoryToolDependencies {
  nc: NatsConnection;
  recall: RecallEngine;
  saver: FactSaver;
  workingMemory: WorkingMemoryStore;
  logger: Logger;
  /** The most memories memory_search returns, and the largest working-memory value in bytes (as for the RPCs). */
  limits: { recallMaxLimit: number; workingMemoryMaxValueBytes: number };
}

const Key = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'letters, digits, "_", ".", ":" or "-" (1-128)');

function runOf(context: ToolContext): string {
  if (!context.runId)
    throw new ToolFailure('working memory belongs to a run, and this call carries no run id', 'invalid');
  return context.runId;
}

/** The memory tools: long-term search and explicit saves, and the run's working memory scratchpad. */
function memoryTools(deps: MemoryToolDependencies): ToolDefinition[] {
  return [
    defineTool({
      name: 'memory_search',
      description:
        'Search long-term memory (facts and earlier conversations) about the user. Use it when the user refers to something from before that is not in this conversation.',
      input: z.object({
        query: z.string().min(1).max(2_000).describe('What to look for, in words'),
        collection: CollectionName.optional().describe('Only this collection and those below it, e.g. "user:alice"'),
        limit: z.number().int().min(1).max(deps.limits.recallMaxLimit).default(5),
      }),
      sideEffect: 'none',
      timeoutMs: 10_000,
      handler: async (input, context) => {
        const result = await deps.recall.recall({
          tenantId: context.tenantId,
          query: input.query,
          collectionPrefix: input.collection ?? '',
          limit: input.limit,
          tokenBudget: 0,
          conversationId: context.conversationId,
          includeEpisodes: true,
        });
        return {
          searchMode: result.searchMode,
          results: result.items.map((i) => ({
            id: i.fact?.factId ?? i.episode?.episodeId ?? `${i.message?.conversationId}#${i.message?.seq}`,
            text: i.text,
            why: i.why,
          })),
        };
      },
    }),
    defineTool({
      name: 'memory_save',
      description:
        'Remember a fact for later conversations ("remember that..."), as subject, predicate and object, e.g. user / lives_in / Berlin. A new value of a one-value predicate replaces the old one.',
      input: z.object({
        subject: z.string().min(1).max(200),
        predicate: z.string().min(1).max(64),
        object: z.string().min(1).max(500),
        kind: z.enum(['fact', 'preference']).default('fact'),
        collection: CollectionName.optional(),
      }),
      // The same call id saves the same fact; a repeat finds it and stores nothing new.
      sideEffect: 'idempotent',
      timeoutMs: 10_000,
      handler: async (input, context) => {
        // Tool calls carry no tier: the default tier's fact quota applies.
        const written = await deps.saver
          .save({
            tenantId: context.tenantId,
            collection: input.collection,
            subject: input.subject,
            predicate: input.predicate,
            object: input.object,
            kind: input.kind,
            confidence: 1,
            conversationId: context.conversationId,
            runId: context.runId ?? null,
            messageSeq: null,
            tier: '',
          })
          .catch((err: unknown) => {
            if (isPlatformError(err) && err.code === ErrorCodes.QUOTA_EXCEEDED)
              throw new ToolFailure(err.message, 'invalid');
            throw err;
          });
        return { factId: written.fact.fact_id, duplicate: written.duplicate, superseded: written.supersededIds };
      },
    }),
    defineTool({
      name: 'working_memory_set',
      description:
        "Note a value on this run's scratchpad (working memory), e.g. an id or a partial result to use in later steps. Cleared when the run ends.",
      input: z.object({ key: Key, value: z.unknown().describe('Any JSON value; null deletes the key') }),
      sideEffect: 'idempotent',
      timeoutMs: 5_000,
      handler: async (input, context) => {
        const valueJson = input.value === null || input.value === undefined ? '' : JSON.stringify(input.value);
        if (Buffer.byteLength(valueJson) > deps.limits.workingMemoryMaxValueBytes)
          throw new ToolFailure(`the value is larger than ${deps.limits.workingMemoryMaxValueBytes} bytes`, 'invalid');
        const size = await deps.workingMemory.set(context.tenantId, runOf(context), context.conversationId, [
          { key: input.key, valueJson },
        ]);
        if (size === 'too_many_keys')
          throw new ToolFailure('working memory is full; delete keys first (set them to null)', 'invalid');
        return { keys: size };
      },
    }),
    defineTool({
      name: 'working_memory_get',
      description: "Read values from this run's scratchpad (working memory); without keys, returns everything.",
      input: z.object({ keys: z.array(Key).max(100).default([]) }),
      sideEffect: 'none',
      timeoutMs: 5_000,
      handler: async (input, context) => {
        const entries = await deps.workingMemory.get(context.tenantId, runOf(context), input.keys);
        return Object.fromEntries(entries.map((e) => [e.key, JSON.parse(e.valueJson) as unknown]));
      },
    }),
  ];
}

/** Serves the memory tools as a runner (discovered like any other). */
export function serveMemoryTools(deps: MemoryToolDependencies): Promise<ToolRunner> {
  return serveRunner({
    nc: deps.nc,
    name: MEMORY_RUNNER_NAME,
    version: '1.0.0',
    description: 'Long-term memory and working memory',
    tools: memoryTools(deps),
    logger: deps.logger,
  });
}
