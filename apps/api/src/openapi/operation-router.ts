import type { TenantRole } from '@platform/contracts';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { HttpError } from '../http-errors.js';
import { requireOperator } from '../operator.js';
import {
  STREAMED,
  type Access,
  type InvalidInputAnswer,
  type OperationHandler,
  type OperationSpec,
} from './operation.js';
import { ApiErrorCodes } from '../error-codes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route (the auth hook skips `public` ones). */
    access?: Access;
    /** The least tenant role a `tenant` route needs (the auth hook answers 403 FORBIDDEN_ROLE below it). */
    role?: TenantRole;
    /** The operation's id (the audit names it). */
    operationId?: string;
  }
}

export interface OperationRouterOptions {
  /** The role (in a token's `roles` claim) that `operator` operations require. */
  operatorRole: string;
  /**
   * Check every JSON reply against the operation's documented schema for its status, answering
   * 500 REPLY_NOT_AS_DOCUMENTED when it differs (for tests: the handlers' replies and the
   * OpenAPI document cannot drift apart unnoticed).
   */
  checkReplies?: boolean;
}

const DEFAULT_CODES = {
  params: ApiErrorCodes.INVALID_PATH,
  query: ApiErrorCodes.INVALID_QUERY,
  body: ApiErrorCodes.INVALID_BODY,
} as const;

/** `/v1/runs/{runId}` as Fastify writes it: `/v1/runs/:runId`. */
function fastifyPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

function parsePart<T>(schema: z.ZodType<T>, input: unknown, answer: InvalidInputAnswer): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const message =
    answer.message ?? (issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'invalid input');
  const issues = parsed.error.issues.map((i) => ({
    field: i.path.map(String).join('.') || '(root)',
    message: i.message,
  }));
  throw new HttpError(answer.status ?? 400, answer.code, message, answer.issues ? { issues } : undefined);
}

/** Registers operations as Fastify routes: input parsed by the operation's schemas, replies as documented. */
export class OperationRouter {
  constructor(
    readonly app: FastifyInstance,
    private readonly options: OperationRouterOptions,
  ) {}

  add<S extends OperationSpec>(operation: S, handler: NoInfer<OperationHandler<S>>): void {
    const invalid = operation.invalid ?? {};
    this.app.route({
      method: operation.method,
      url: fastifyPath(operation.path),
      config: {
        access: operation.access,
        ...(operation.access === 'tenant' ? { role: operation.role } : {}),
        operationId: operation.operationId,
        hasBody: operation.body !== undefined,
      },
      handler: async (request, reply) => {
        if (operation.access === 'operator') requireOperator(request, this.options.operatorRole);
        // Path first, then query, then body: the first part at fault is the one named.
        const params = operation.params
          ? parsePart(operation.params, request.params, invalid.params ?? { code: DEFAULT_CODES.params })
          : undefined;
        const query = operation.query
          ? parsePart(operation.query, request.query, invalid.query ?? { code: DEFAULT_CODES.query })
          : undefined;
        const body = operation.body
          ? parsePart(operation.body, request.body, invalid.body ?? { code: DEFAULT_CODES.body })
          : undefined;
        const answer = await handler({ params, query, body, request, reply } as Parameters<OperationHandler<S>>[0]);
        if (answer === STREAMED) return reply;
        const status: number = answer.status;
        if (this.options.checkReplies) checkReply(operation, status, answer.body);
        return answer.body === undefined ? reply.code(status).send() : reply.code(status).send(answer.body);
      },
    });
  }
}

function checkReply(operation: OperationSpec, status: number, body: unknown): void {
  const documented = operation.responses[status];
  if (!documented)
    throw new HttpError(
      500,
      ApiErrorCodes.REPLY_NOT_AS_DOCUMENTED,
      `${operation.operationId} answered ${status}, which it does not document`,
    );
  if (!documented.body) {
    if (body !== undefined)
      throw new HttpError(
        500,
        ApiErrorCodes.REPLY_NOT_AS_DOCUMENTED,
        `${operation.operationId} documents no body for ${status}`,
      );
    return;
  }
  const parsed = documented.body.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(
      500,
      ApiErrorCodes.REPLY_NOT_AS_DOCUMENTED,
      `${operation.operationId} ${status}: ${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'differs'}`,
    );
  }
}
