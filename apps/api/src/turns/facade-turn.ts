import type { FastifyRequest } from 'fastify';
import type { RunProtocol } from '@platform/contracts';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import { principalOf } from '../principal.js';
import { idempotencyFields } from './idempotency-key.js';
import type { TurnRequest } from './turn-runner.js';

/** What an OpenAI-style request (Chat Completions, Responses) asks of its turn. */
export interface FacadeTurnInput {
  protocol: RunProtocol;
  conversationId: string;
  content: string;
  /** The agent: `model` of the request. */
  model: string;
  stream: boolean;
  maxMessageChars: number;
  outputSchema?: Record<string, unknown> | undefined;
  overridesJson?: string | undefined;
  /** What the protocol's request asked beyond the message, recorded with the run (HandleMessageRequest.protocol_request_json). */
  protocolRequestJson?: string | undefined;
  idempotencyKey?: string | undefined;
  fingerprint?: string | undefined;
}

/** The turn of an OpenAI-style request, for the token's tenant and user; content over the limit is a 413. */
export function facadeTurn(request: FastifyRequest, input: FacadeTurnInput): TurnRequest {
  if (input.content.length > input.maxMessageChars)
    throw new HttpError(
      413,
      ApiErrorCodes.CONTENT_TOO_LONG,
      `the messages are longer than ${input.maxMessageChars} characters`,
    );
  const principal = principalOf(request);
  return {
    protocol: input.protocol,
    tenantId: principal.tenantId,
    conversationId: input.conversationId,
    content: input.content,
    requestId: request.id,
    profile: input.model,
    stream: input.stream,
    tier: principal.tier ?? '',
    // The end user (the token's sub, or the user a key acts for): the run records it, and only
    // that user (or an admin) decides the run's approvals (docs/access.md#approvals).
    subject: principal.subject ?? '',
    // Its role: the orchestrator lets a member send only to their own conversations and shared
    // ones, and a reply that reads as an approval decision decides only what the role may.
    role: principal.role,
    timeZone: '',
    ...(input.outputSchema ? { outputSchemaJson: JSON.stringify(input.outputSchema) } : {}),
    ...(input.overridesJson ? { overridesJson: input.overridesJson } : {}),
    ...(input.protocolRequestJson ? { protocolRequestJson: input.protocolRequestJson } : {}),
    ...idempotencyFields(input.idempotencyKey, () => input.fingerprint ?? ''),
  };
}
