import { TOOL_QUEUE_GROUP, toolBatchSubject } from '@platform/contracts';
import { headerGetter, type Logger, type NatsConnection } from '@platform/service-kit';
import { runInMessagingServerSpan } from '@platform/telemetry';
import type { CallDedupe } from './call-dedupe.js';
import type { ToolDefinition } from './define-tool.js';
import { handleToolBatch, type BatchEnvironment, type CallSlots } from './handle-batch.js';

export interface BatchServing extends Omit<BatchEnvironment, 'guard'> {
  logger: Logger;
  /** The dedupe guard of a tool's calls (the same one its single calls use), if any. */
  guardOf: (tool: ToolDefinition) => CallDedupe | undefined;
  /** The runner's slots, shared with single calls. */
  slots: CallSlots;
  /** Hands each batch's work to the runner, which awaits it when draining. */
  track: (work: Promise<void>) => void;
}

/** The batch subscriptions of a runner's tools. */
export interface BatchSubscriptions {
  /** Stops taking batches (work already taken goes on). */
  stop(): void;
}

/**
 * Serves every tool's batch subject (`toolBatchSubject`) in the runners' queue group, beside its
 * single-call endpoint. Batches are plain queue subscriptions, not micro-service endpoints: they
 * are a transport for the tool's own calls, so discovery lists the tool once.
 */
export function serveToolBatches(
  nc: NatsConnection,
  tools: readonly ToolDefinition[],
  serving: BatchServing,
): BatchSubscriptions {
  const { logger, guardOf, slots, track, ...env } = serving;
  const subscriptions = tools.map((tool) => {
    const subject = toolBatchSubject(tool.name);
    const guard = guardOf(tool);
    return nc.subscribe(subject, {
      queue: TOOL_QUEUE_GROUP,
      callback: (err, msg) => {
        if (err) {
          logger.error({ err, tool: tool.name }, 'batch subscription failed');
          return;
        }
        const getHeader = headerGetter(msg.headers);
        const work = runInMessagingServerSpan(
          { subject, getHeader, queueGroup: TOOL_QUEUE_GROUP, bodySize: msg.data.length },
          async (span) => {
            const reply = await handleToolBatch(tool, msg.string(), { ...env, logger, guard }, slots);
            if ('refused' in reply) span.setAttribute('platform.tool.status', reply.refused.status);
            else span.setAttribute('platform.tool.batch_size', reply.results.length);
            msg.respond(JSON.stringify(reply));
          },
        ).catch((error: unknown) =>
          logger.error({ err: error, tool: tool.name }, 'could not answer a batch of tool calls'),
        );
        track(work);
      },
    });
  });
  return {
    stop: () => {
      for (const subscription of subscriptions) subscription.unsubscribe();
    },
  };
}
