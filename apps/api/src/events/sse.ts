import type { FastifyReply } from 'fastify';

/** Server-sent events over a hijacked reply: `id`, `event` and one JSON `data` line per event. */
export class SseStream {
  private readonly heartbeat: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly reply: FastifyReply,
    heartbeatMs: number,
    extraHeaders: Record<string, string> = {},
  ) {
    // Headers the route set on the reply (e.g. the facade's x-conversation-id) are not sent by a
    // hijacked reply: carry them over, then the stream's own.
    const routeHeaders = Object.fromEntries(
      Object.entries(reply.getHeaders()).filter(([, value]) => value !== undefined),
    ) as Record<string, string | number | string[]>;
    reply.hijack();
    reply.raw.writeHead(200, {
      ...routeHeaders,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...extraHeaders,
    });
    // Node holds written headers back until the first body byte: a stream with nothing to send
    // yet (an empty notification feed) would show its client nothing until the first heartbeat.
    reply.raw.flushHeaders();
    // Comments keep proxies from closing an idle stream while a tool runs.
    this.heartbeat = setInterval(() => this.reply.raw.write(': keep-alive\n\n'), heartbeatMs);
  }

  send(event: string, data: unknown, id?: number): void {
    if (this.ended) return;
    const idLine = id === undefined ? '' : `id: ${id}\n`;
    this.reply.raw.write(`${idLine}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A bare `data:` line, as the OpenAI streaming format wants it. */
  sendData(data: string): void {
    if (!this.ended) this.reply.raw.write(`data: ${data}\n\n`);
  }

  /** Text already in the SSE format (e.g. AG-UI's EventEncoder output). */
  write(encoded: string): void {
    if (!this.ended) this.reply.raw.write(encoded);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.reply.raw.end();
  }

  /** Aborts when the client goes away. */
  closedSignal(): AbortSignal {
    const controller = new AbortController();
    this.reply.raw.on('close', () => {
      this.end();
      controller.abort(new Error('client closed the stream'));
    });
    return controller.signal;
  }
}

/** `Last-Event-ID` header (or `?after=`) as a non-negative integer; anything else counts as 0. */
export function lastEventIdOf(header: string | string[] | undefined, query: unknown): number {
  const raw = (Array.isArray(header) ? header[0] : header) ?? (query as { after?: unknown } | undefined)?.after;
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : 0;
}
