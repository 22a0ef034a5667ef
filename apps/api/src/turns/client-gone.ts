import type { FastifyReply } from 'fastify';

/**
 * Aborts when the client closes the connection before its answer was sent. Waiting for the turn
 * stops then; the run itself goes on (it is durable, and `GET /v1/runs/{runId}` has its result).
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
