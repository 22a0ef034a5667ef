import type { ErrorKind } from './errors.js';

/** One error code of a service's catalogue: what it means, and how the edges report it. */
export interface ErrorCodeSpec {
  /** The kind the code is raised with (the edges map it to a gRPC or HTTP status). */
  readonly kind: ErrorKind;
  /** What the code means, for the docs and for a reader of a throw site. */
  readonly description: string;
}

/** A catalogue's codes by name: `{ INVALID_SOURCE: 'INVALID_SOURCE', … }`, each typed as its literal.
 * @public Named by every service's inferred `ErrorCodes` type (TS2742 without this export).
 */
export type ErrorCodesOf<C> = { readonly [K in keyof C & string]: K };

/**
 * The code-by-name object of an `as const` catalogue, so throw sites write `ErrorCodes.TASK_NOT_FOUND`
 * and a code that is not in the catalogue does not compile.
 */
export function codesOf<const C extends Record<string, unknown>>(catalogue: C): ErrorCodesOf<C> {
  return Object.freeze(Object.fromEntries(Object.keys(catalogue).map((code) => [code, code]))) as ErrorCodesOf<C>;
}

/** Codes raised by service-kit itself, on behalf of every service (its gRPC edges, its quota helper). */
export const sharedErrorCatalogue = {
  INTERNAL: {
    kind: 'internal',
    description: 'Anything thrown that is not a platform error; its message stays in the logs.',
  },
  DEPENDENCY_UNAVAILABLE: {
    kind: 'unavailable',
    description: "A handler lost a dependency's connection (e.g. its database); try again shortly.",
  },
  INVALID_CONTENT: {
    kind: 'invalid_argument',
    description: 'The request holds text that cannot be stored (NUL, or characters that are not UTF-8).',
  },
  CALLER_GAVE_UP: {
    kind: 'cancelled',
    description: 'The caller cancelled the call or its deadline passed.',
  },
  QUOTA_EXCEEDED: {
    kind: 'resource_exhausted',
    description: "A tenant's quota refused the request; `details.quota` names it.",
  },
  INVALID_TENANT_ID: {
    kind: 'invalid_argument',
    description: 'The tenant id of the request is not a valid tenant id.',
  },
  INVALID_CONVERSATION_ID: {
    kind: 'invalid_argument',
    description: 'The conversation id of the request is not a valid conversation id.',
  },
  INVALID_RUN_ID: { kind: 'invalid_argument', description: 'The run id of the request is not a valid run id.' },
  INVALID_LIMIT: { kind: 'invalid_argument', description: 'A page size or limit outside its allowed range.' },
  INVALID_PAGE_TOKEN: {
    kind: 'invalid_argument',
    description: 'A page token that this listing did not hand out (or for other filters).',
  },
  INVALID_AFTER_SEQ: { kind: 'invalid_argument', description: 'A sequence number to read after that is not valid.' },
} as const satisfies Record<string, ErrorCodeSpec>;

/** The codes of {@link sharedErrorCatalogue} by name. */
export const SharedErrorCodes = codesOf(sharedErrorCatalogue);
