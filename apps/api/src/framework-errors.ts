import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { toHttpError, type ErrorBody } from './http-errors.js';
import { ApiErrorCodes } from './error-codes.js';

/**
 * Longest path parameter the router accepts, in characters as sent (percent-encoded). Fastify's
 * default, 100, is shorter than ids the API documents (a conversation id may have 128 characters,
 * a subject 200, each up to 12 characters once encoded); the operations' schemas bound each one.
 */
const MAX_PARAM_LENGTH = 4_096;

/**
 * Errors Node's HTTP parser raises before Fastify sees a request, each answered in the documented
 * envelope (Fastify's own handler writes its shape).
 */
function clientErrorAnswer(code: string | undefined): { status: number; body: ErrorBody } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      status: 431,
      body: {
        error: {
          code: ApiErrorCodes.HEADERS_TOO_LARGE,
          message: 'the request headers (with the URL) are larger than the server accepts',
        },
      },
    };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      body: { error: { code: ApiErrorCodes.REQUEST_TIMEOUT, message: 'the request was not received in time' } },
    };
  return {
    status: 400,
    body: { error: { code: ApiErrorCodes.BAD_REQUEST, message: 'the request is not valid HTTP/1.1' } },
  };
}

/**
 * Fastify options under which every error the framework raises itself (a bad URL encoding, an
 * overlong path parameter, a request Node's parser refuses) leaves the api in the documented
 * envelope with a stable code, like the errors of the routes.
 */
export function frameworkErrorOptions(
  logger: FastifyBaseLogger,
): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler' | 'routerOptions'> {
  return {
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error: Error, _request: FastifyRequest, reply: FastifyReply) => {
      const mapped = toHttpError(error);
      void reply.code(mapped.status).send(mapped.body);
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      // A reset connection has nobody left to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const { status, body } = clientErrorAnswer(error.code);
      logger.debug({ err: error.message, status }, 'malformed request refused');
      const text = JSON.stringify(body);
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
        );
      }
      socket.destroy(error);
    },
  };
}
