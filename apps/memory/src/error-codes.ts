import { codesOf, SharedErrorCodes, type ErrorCodeSpec } from '@platform/service-kit';

/**
 * Every error code this service raises besides service-kit's shared ones (`SharedErrorCodes`),
 * with the kind it is raised with and what it means.
 */
const memoryErrorCatalogue = {
  INVALID_APPEND_ID: { kind: 'invalid_argument', description: '`append_id` is not a valid append id.' },
  TOO_MANY_MESSAGES: {
    kind: 'invalid_argument',
    description: 'An append of more than MEMORY_MAX_APPEND_MESSAGES messages.',
  },
  MESSAGE_TOO_LARGE: { kind: 'invalid_argument', description: 'A message larger than MEMORY_MAX_MESSAGE_BYTES.' },
  INVALID_MESSAGE: { kind: 'invalid_argument', description: 'A message that is not valid JSON or not a chat message.' },
  INVALID_MAX_BYTES: { kind: 'invalid_argument', description: '`max_bytes` outside 0 and MEMORY_MAX_PAGE_BYTES.' },
  INVALID_COLLECTION: { kind: 'invalid_argument', description: 'A collection name (or prefix) that is not valid.' },
  MODEL_UNAVAILABLE: {
    kind: 'unavailable',
    description: 'The memory model could not answer, or its answer could not be read; try again.',
  },
  INVALID_TOKEN_BUDGET: { kind: 'invalid_argument', description: '`token_budget` is negative.' },
  INVALID_QUERY: { kind: 'invalid_argument', description: '`query` is empty or too long.' },
  INVALID_QUESTION: { kind: 'invalid_argument', description: '`question` is empty or too long.' },
  INVALID_SUBJECT: { kind: 'invalid_argument', description: "A fact's `subject` is empty or too long." },
  INVALID_PREDICATE: { kind: 'invalid_argument', description: "A fact's `predicate` is empty or too long." },
  INVALID_OBJECT: { kind: 'invalid_argument', description: "A fact's `object` is empty or too long." },
  INVALID_CONFIDENCE: { kind: 'invalid_argument', description: '`confidence` outside 0 and 1.' },
  INVALID_KIND: { kind: 'invalid_argument', description: '`kind` is neither "fact" nor "preference".' },
  FACT_NOT_FOUND: { kind: 'not_found', description: 'No fact with this id for this tenant.' },
  INVALID_KEY: { kind: 'invalid_argument', description: 'A working-memory key that is not valid.' },
  INVALID_VALUE: { kind: 'invalid_argument', description: 'A working-memory value that is not valid JSON.' },
  VALUE_TOO_LARGE: {
    kind: 'invalid_argument',
    description: 'A working-memory value larger than MEMORY_WORKING_MEMORY_MAX_VALUE_BYTES.',
  },
  WORKING_MEMORY_FULL: {
    kind: 'resource_exhausted',
    description: "The run's working memory holds too many keys; delete some first.",
  },
  CONVERSATION_NOT_FOUND: { kind: 'not_found', description: 'No conversation with this id for this tenant.' },
  MESSAGE_NOT_FOUND: { kind: 'not_found', description: 'A fork at a seq the conversation has no message at.' },
  CONVERSATION_EXISTS: { kind: 'already_exists', description: "A fork's new conversation id is already taken." },
  FORK_TOO_DEEP: {
    kind: 'failed_precondition',
    description: 'A fork of a fork already MAX_FORK_DEPTH (10) forks from its root conversation.',
  },
  FORK_INSIDE_TOOL_CALL: {
    kind: 'failed_precondition',
    description:
      'A fork at a message between a tool call and its results (the fork would start with an unanswered tool call).',
  },
  INVALID_SEQ: { kind: 'invalid_argument', description: '`at_seq` is negative.' },
  INVALID_EXTRACTION: {
    kind: 'internal',
    description:
      'The model kept answering an extraction with output that fails validation; nothing of the turn is stored.',
  },
} as const satisfies Record<string, ErrorCodeSpec>;

/** Codes by name, the shared ones included: throw sites write `ErrorCodes.TASK_NOT_FOUND`. */
export const ErrorCodes = { ...SharedErrorCodes, ...codesOf(memoryErrorCatalogue) };
