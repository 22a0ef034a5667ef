import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { TenantRole } from '@platform/contracts';
import type { ApiErrorCode } from '../error-codes.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an operation: anyone (`public`), any verified token, answered for its tenant
 * (`tenant`; operators may read another tenant's data on GETs with `Platform-Tenant`), or only
 * tokens with the operator role (`operator`).
 */
export type Access = 'public' | 'tenant' | 'operator';

/** How a request part that fails its schema is answered: 400 with `code` and the first issue, unless told otherwise. */
export interface InvalidInputAnswer {
  status?: 400 | 404;
  code: ApiErrorCode;
  /** A fixed message instead of the first issue. */
  message?: string;
  /** Also list every issue in `details.issues` (`[{field, message}]`), as the trigger service does for task specs. */
  issues?: boolean;
}

/** One documented response of an operation. */
export interface ResponseSpec {
  description: string;
  /** The JSON body (absent: no body, e.g. 204). */
  body?: z.ZodType;
  /** Server-sent events: the JSON each event's `data:` line holds. */
  events?: z.ZodType;
  /** Named examples of `body`; the document's test checks each one against it. */
  examples?: Record<string, unknown>;
  /** Response headers worth knowing (e.g. `x-run-id`). */
  headers?: z.ZodObject;
}

/** Error statuses an operation can answer besides the ones every route shares, each with its stable codes. */
export type ErrorCodes = Partial<
  Record<
    400 | 403 | 404 | 405 | 406 | 408 | 409 | 410 | 412 | 413 | 415 | 428 | 429 | 431 | 499 | 502 | 503 | 504,
    readonly ApiErrorCode[]
  >
>;

/**
 * Who may call the operation. A `tenant` operation must name the least tenant role it needs
 * (docs/access.md): the type refuses one without it, the api answers 403 FORBIDDEN_ROLE to a
 * caller below it, and docs/access.md's role table is generated from these declarations.
 */
type OperationAccess = { access: 'public' | 'operator'; role?: never } | { access: 'tenant'; role: TenantRole };

/**
 * One HTTP operation, declared once: the route registers with it and validates its input with
 * these very schemas, and the OpenAPI document is generated from it.
 */
export type OperationSpec = OperationFields & OperationAccess;

interface OperationFields {
  method: HttpMethod;
  /** OpenAPI style: `/v1/runs/{runId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Request headers the operation reads (documented; the handler checks them with these schemas). */
  headers?: z.ZodObject;
  /** Answers for input that fails `params`, `query` or `body` (defaults: INVALID_PATH, INVALID_QUERY, INVALID_BODY). */
  invalid?: { params?: InvalidInputAnswer; query?: InvalidInputAnswer; body?: InvalidInputAnswer };
  /** Named examples of `body`; the document's test checks each one against it. */
  bodyExamples?: Record<string, unknown>;
  responses: Record<number, ResponseSpec>;
  errors?: ErrorCodes;
}

/** Declares an operation, keeping its literal types so handlers are checked against its schemas. */
export function defineOperation<const S extends OperationSpec>(spec: S): S {
  return spec;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler receives: its request's parts, parsed by the operation's schemas. */
interface OperationInput<S extends OperationSpec> {
  params: Parsed<S['params']>;
  query: Parsed<S['query']>;
  body: Parsed<S['body']>;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** Returned by a handler that answered itself (an event stream). */
export const STREAMED = Symbol('streamed');

type ReplyFor<Status, R> = R extends { body: z.ZodType }
  ? { status: Status; body: z.input<R['body']> }
  : R extends { events: z.ZodType }
    ? never
    : { status: Status; body?: undefined };

/** What a handler returns: one of the operation's documented statuses with its body, or {@link STREAMED}. */
type OperationReply<S extends OperationSpec> =
  | { [Status in keyof S['responses'] & number]: ReplyFor<Status, S['responses'][Status]> }[keyof S['responses'] &
      number]
  | typeof STREAMED;

export type OperationHandler<S extends OperationSpec> = (input: OperationInput<S>) => Promise<OperationReply<S>>;
