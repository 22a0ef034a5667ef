import type { FastifyReply } from 'fastify';
import { SseStream } from '../events/sse.js';

/** A JSON-RPC response as the SDK's transport handlers make them. */
export interface RpcResponse {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
  [key: string]: unknown;
}

export interface RpcStreamOptions {
  id: string | number | null;
  heartbeatMs: number;
  /** The transport's own mapping of an error to a JSON-RPC error (1.0 or 0.3). */
  mapError: (error: unknown) => unknown;
}

/**
 * Writes a streaming method's JSON-RPC responses as server-sent events, one per `data:` line (the
 * A2A JSON-RPC binding). The stream opens with the first response: an error before it (the task
 * is unknown, the run was refused) is answered as a plain JSON-RPC error, which this returns for
 * the route to send. An error after it is an `error` event, then the stream ends. A client that
 * goes away stops the read (the run goes on).
 */
export async function writeRpcStream(
  reply: FastifyReply,
  responses: AsyncGenerator<RpcResponse, void, undefined>,
  options: RpcStreamOptions,
): Promise<{ status: 200; body: RpcResponse } | undefined> {
  let first: IteratorResult<RpcResponse, void>;
  try {
    first = await responses.next();
  } catch (error) {
    return { status: 200, body: { jsonrpc: '2.0', id: options.id, error: options.mapError(error) } };
  }
  const stream = new SseStream(reply, options.heartbeatMs);
  stream.closedSignal().addEventListener('abort', () => void responses.return(undefined).catch(() => undefined), {
    once: true,
  });
  try {
    let next = first;
    while (!next.done) {
      stream.sendData(JSON.stringify(next.value));
      next = await responses.next();
    }
  } catch (error) {
    stream.write(
      `event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: options.id, error: options.mapError(error) })}\n\n`,
    );
  } finally {
    stream.end();
  }
  return undefined;
}
