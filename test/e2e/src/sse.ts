// Server-sent events as a client reads them: parsed by hand from fetch's body stream, so the
// suites check the wire format itself (fields, ids, blank-line framing), not a library's view of it.
import type { Platform } from '@platform/testing';
import { tokenFor } from './support.js';

/** One event of a stream: `id:` and `event:` when sent, `data:` lines joined by newlines. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** A run event as the api sends it in `data:`. */
export interface RunEventEnvelope {
  id: number;
  runId: string;
  type: string;
  at: number;
  data: Record<string, unknown>;
}

/** Parses one event block (the lines between two blank lines); comment-only blocks give nothing. */
function parseBlock(block: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    fields += 1;
    if (field === 'data') data.push(value);
    else if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
  }
  if (fields === 0) return undefined;
  event.data = data.join('\n');
  return event;
}

/** Yields the events of an SSE response body as they arrive; ends when the server ends the stream. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
    const rest = parseBlock(buffer);
    if (rest) yield rest;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Reads a whole SSE response (until the server closes it). */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of sseEvents(response)) events.push(event);
  return events;
}

/** The run events of a stream (`data:` parsed), checking that `id:` and `event:` match the envelope. */
export function runEventsOf(events: readonly SseEvent[]): RunEventEnvelope[] {
  return events.map((e) => {
    const envelope = JSON.parse(e.data) as RunEventEnvelope;
    if (e.id !== String(envelope.id)) throw new Error(`SSE id ${e.id} does not match the envelope id ${envelope.id}`);
    if (e.event !== envelope.type)
      throw new Error(`SSE event ${e.event} does not match the envelope type ${envelope.type}`);
    return envelope;
  });
}

/** Sends a message asking for the run's events as SSE (`Accept: text/event-stream`). */
export async function postMessageStream(
  platform: Platform,
  tenant: string,
  conversationId: string,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${platform.apiUrl}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await tokenFor(tenant)}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Watches a run's events (`GET /v1/runs/{id}/events`), optionally after `Last-Event-ID`. */
export async function watchRun(
  platform: Platform,
  tenant: string,
  runId: string,
  lastEventId?: number,
): Promise<Response> {
  return fetch(`${platform.apiUrl}/v1/runs/${runId}/events`, {
    headers: {
      authorization: `Bearer ${await tokenFor(tenant)}`,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
  });
}
