// Validation a runner in any language would write from docs/tool-protocol.md: the protocol
// headers, the request body, and the small JSON Schema subset this test runner publishes.
// Deliberately independent of @platform/contracts and zod, so the conformance test checks the
// document, not our own schema code against itself.

/** A problem with a request, as the protocol reports it in `error.issues`. */
export interface Issue {
  path: string;
  message: string;
}

/** The JSON Schema subset the raw runner publishes: a flat object of scalar properties. */
export interface FlatObjectSchema {
  type: 'object';
  properties: Record<
    string,
    { type: 'string' | 'number' | 'integer' | 'boolean'; description?: string; minLength?: number }
  >;
  required: string[];
  additionalProperties: false;
}

/** What the protocol headers say about a call. */
export interface CallHeaders {
  callId: string;
  tenant: string;
  conversation: string;
  run: string | undefined;
  deadlineAt: number;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const CALL_ID = /^[\x21-\x7e]{1,256}$/;

/** Reads and checks the request headers; returns the issues when any is missing or malformed. */
export function readCallHeaders(get: (name: string) => string): CallHeaders | Issue[] {
  const issues: Issue[] = [];
  const need = (name: string, pattern: RegExp, optional = false): string | undefined => {
    const value = get(name);
    if (value === '' && optional) return undefined;
    if (!pattern.test(value))
      issues.push({ path: name, message: value === '' ? 'missing' : `invalid value '${value}'` });
    return value;
  };
  const callId = need('Platform-Call-Id', CALL_ID);
  const tenant = need('Platform-Tenant', ID);
  const conversation = need('Platform-Conversation', ID);
  const run = need('Platform-Run', ID, true);
  const deadlineText = get('Platform-Deadline');
  const deadlineAt = Number(deadlineText);
  if (!/^\d+$/.test(deadlineText) || deadlineAt <= 0)
    issues.push({ path: 'Platform-Deadline', message: 'must be a positive integer (epoch milliseconds)' });
  const protocol = get('Platform-Protocol');
  if (protocol !== '' && protocol !== '1')
    issues.push({ path: 'Platform-Protocol', message: `unsupported protocol version '${protocol}'` });
  if (issues.length > 0) return issues;
  return { callId: callId!, tenant: tenant!, conversation: conversation!, run, deadlineAt };
}

/** Parses the body `{ "arguments": { ... } }`; returns the issues when it is not that. */
export function readArguments(body: string): Record<string, unknown> | Issue[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return [{ path: '(body)', message: 'request body is not valid JSON' }];
  }
  const args = (json as { arguments?: unknown } | null)?.arguments;
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return [{ path: 'arguments', message: 'must be a JSON object' }];
  return args as Record<string, unknown>;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Checks arguments against a flat object schema; returns every problem, not just the first. */
export function validateArguments(schema: FlatObjectSchema, args: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  for (const key of schema.required) if (!(key in args)) issues.push({ path: key, message: 'required' });
  for (const [key, value] of Object.entries(args)) {
    const property = schema.properties[key];
    if (!property) {
      issues.push({ path: key, message: 'unexpected property' });
      continue;
    }
    const actual = typeOf(value);
    const fits = actual === property.type || (property.type === 'number' && actual === 'integer');
    if (!fits) issues.push({ path: key, message: `expected ${property.type}, received ${actual}` });
    else if (property.minLength !== undefined && typeof value === 'string' && value.length < property.minLength) {
      issues.push({ path: key, message: `must have at least ${property.minLength} characters` });
    }
  }
  return issues;
}
