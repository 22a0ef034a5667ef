// Spans for NATS request-reply, following the OpenTelemetry messaging semantic conventions: the
// requester's "send" span is a PRODUCER (its context travels in the message headers as the
// creation context) and the responder's "process" span is a CONSUMER child of it.
import { context as contextApi, SpanKind, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { extractTraceContext, injectTraceContext, type HeaderGetter, type HeaderSetter } from './propagation.js';
import { ATTR, TRACER_NAME, VALUE } from './semconv.js';
import { recordSpanError } from './span-status.js';
import { withSpan } from './with-span.js';

/** What the requester is about to send. */
export interface MessagingClientSpanOptions {
  /** Subject the message is sent to. Must be low-cardinality (no reply inboxes, no ids): it is part of the span name. */
  readonly subject: string;
  /** `request` (waits for a reply; the default) or `publish` (fire and forget). */
  readonly operation?: 'request' | 'publish';
  /** Payload size in bytes, if known. */
  readonly bodySize?: number;
}

/** An open PRODUCER span for one outgoing message; the caller ends it when the reply (or failure) arrives. */
export interface MessagingClientSpan {
  readonly span: Span;
  /** The active context plus this span: the context to propagate with the message. */
  readonly context: Context;
  /** Writes this span's trace context into the outgoing message's headers. */
  inject(setHeader: HeaderSetter): void;
  /** Ends the span; with an error, first records it and marks the span failed. */
  end(error?: unknown): void;
}

function messagingAttributes(
  subject: string,
  operationName: string,
  operationType: string,
  extra: Attributes,
): Attributes {
  return {
    [ATTR.messagingSystem]: VALUE.messagingSystemNats,
    [ATTR.messagingSystemName]: VALUE.messagingSystemNats,
    [ATTR.messagingDestinationName]: subject,
    [ATTR.messagingOperationName]: operationName,
    [ATTR.messagingOperationType]: operationType,
    ...extra,
  };
}

/**
 * Starts the requester-side span of a NATS request (or publish), named `request <subject>`.
 * The span is not made active; inject its context into the message headers, then `end()` it.
 *
 * @example
 * const out = startMessagingClientSpan({ subject: 'tools.calculator' });
 * const headers = natsHeaders();
 * out.inject((k, v) => headers.set(k, v));
 * try { const reply = await nc.request(subject, data, { headers }); out.end(); } catch (e) { out.end(e); throw e; }
 */
export function startMessagingClientSpan(options: MessagingClientSpanOptions): MessagingClientSpan {
  const operation = options.operation ?? 'request';
  const extra: Attributes = options.bodySize === undefined ? {} : { [ATTR.messagingMessageBodySize]: options.bodySize };
  const parent = contextApi.active();
  const span = trace.getTracer(TRACER_NAME).startSpan(
    `${operation} ${options.subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: messagingAttributes(options.subject, operation, VALUE.messagingOperationTypeSend, extra),
    },
    parent,
  );
  const spanContext = trace.setSpan(parent, span);
  return {
    span,
    context: spanContext,
    inject: (setHeader) => injectTraceContext(setHeader, spanContext),
    end(error?: unknown) {
      if (error !== undefined) recordSpanError(span, error);
      span.end();
    },
  };
}

/** An incoming message as the responder sees it. */
export interface MessagingServerSpanOptions {
  /** Subject the message arrived on (low-cardinality; part of the span name). */
  readonly subject: string;
  /** Reads a header of the incoming message, e.g. `(k) => msg.headers?.get(k) || undefined`. */
  readonly getHeader: HeaderGetter;
  /** Queue group of the subscription, if any. */
  readonly queueGroup?: string;
  /** Payload size in bytes, if known. */
  readonly bodySize?: number;
}

/**
 * Runs the responder's handling of one message in a CONSUMER span named `process <subject>`,
 * continuing the requester's trace from the message headers. Errors thrown by `fn` are recorded on
 * the span and rethrown.
 */
export function runInMessagingServerSpan<T>(
  options: MessagingServerSpanOptions,
  fn: (span: Span) => T | Promise<T>,
): Promise<T> {
  const extra: Attributes = {};
  if (options.queueGroup !== undefined) extra[ATTR.messagingConsumerGroupName] = options.queueGroup;
  if (options.bodySize !== undefined) extra[ATTR.messagingMessageBodySize] = options.bodySize;
  return withSpan(
    TRACER_NAME,
    `process ${options.subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: messagingAttributes(options.subject, 'process', VALUE.messagingOperationTypeProcess, extra),
      parent: extractTraceContext(options.getHeader),
    },
    fn,
  );
}

/** A batch of messages a durable consumer pulled from a stream. */
export interface MessagingBatchSpanOptions {
  /** Stream (or subject) the batch came from (low-cardinality; part of the span name). */
  readonly destination: string;
  /** The durable consumer that pulled it. */
  readonly consumerGroup: string;
  readonly messageCount: number;
}

/**
 * Runs the processing of a batch of messages in a CONSUMER span named `process <destination>`
 * that starts a trace of its own: background work that was not asked for by a traced request
 * (its statements and model calls become the span's children instead of being left untraced).
 */
export function runInMessagingBatchSpan<T>(
  options: MessagingBatchSpanOptions,
  fn: (span: Span) => T | Promise<T>,
): Promise<T> {
  return withSpan(
    TRACER_NAME,
    `process ${options.destination}`,
    {
      kind: SpanKind.CONSUMER,
      root: true,
      attributes: messagingAttributes(options.destination, 'process', VALUE.messagingOperationTypeProcess, {
        [ATTR.messagingConsumerGroupName]: options.consumerGroup,
        [ATTR.messagingBatchMessageCount]: options.messageCount,
      }),
    },
    fn,
  );
}
