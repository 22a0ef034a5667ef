import type { ForeignData } from './hostile-values.js';
import type { RawAnswer } from './platform-under-attack.js';
import type { DocumentedOperation, HostileRequest } from './request-arbitrary.js';

/** Codes any route may answer besides its own: the 404 of a path that matches no route. */
const ROUTE_CODES: Record<number, readonly string[]> = { 404: ['NOT_FOUND'] };

/** The codes the document lists for `status` of `operation` (`x-error-codes`), or undefined when the status is not documented. */
function documentedCodes(operation: DocumentedOperation, status: number): readonly string[] | undefined {
  const response = operation.responses[String(status)];
  const own = response?.['x-error-codes'];
  const shared = ROUTE_CODES[status];
  if (!own && !shared) return undefined;
  return [...(own ?? []), ...(shared ?? [])];
}

function isErrorEnvelope(
  body: unknown,
): body is { error: { code: string; message: string; details?: Record<string, unknown> } } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'error') return false;
  const error = (body as { error: unknown }).error;
  if (!error || typeof error !== 'object') return false;
  const { code, message, details, ...rest } = error as Record<string, unknown>;
  return (
    typeof code === 'string' &&
    typeof message === 'string' &&
    Object.keys(rest).length === 0 &&
    (details === undefined || (typeof details === 'object' && details !== null && !Array.isArray(details)))
  );
}

/**
 * Everything wrong with one answer to a hostile request; empty when it kept the contract. The
 * other tenant's text must never appear; its ids only where the attacker wrote them itself
 * (`namedByAttacker`: ids it sent in this or an earlier request, e.g. as an account name that its
 * own audit then lists, or as an id an error message repeats).
 */
export function contractViolations(
  operation: DocumentedOperation,
  req: HostileRequest,
  answer: RawAnswer,
  foreign: ForeignData,
  namedByAttacker: Set<string>,
): string[] {
  const problems: string[] = [];
  if (answer.timedOut) {
    problems.push('no answer within the time limit');
    return problems;
  }
  if (answer.status === 0) {
    problems.push(answer.text);
    return problems;
  }
  if (answer.status >= 500) problems.push(`answered ${answer.status} (a 5xx)`);
  const requestText = `${decodeURIComponentSafely(req.url)}\n${req.url}\n${JSON.stringify(req.headers)}\n${req.body ? Buffer.from(req.body).toString('utf8') : ''}`;
  for (const id of foreign.ids) if (requestText.includes(id)) namedByAttacker.add(id);
  for (const secret of foreign.secrets)
    if (answer.text.includes(secret)) problems.push(`the answer holds the other tenant's text ${secret}`);
  if (answer.status < 300) {
    for (const id of foreign.ids)
      if (answer.text.includes(id) && !namedByAttacker.has(id))
        problems.push(`the answer holds the other tenant's id ${id}`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    problems.push(`an error without a JSON body: ${JSON.stringify(answer.text.slice(0, 200))}`);
    return problems;
  }
  if (!isErrorEnvelope(body)) {
    problems.push(`an error outside the documented envelope: ${answer.text.slice(0, 300)}`);
    return problems;
  }
  const codes = documentedCodes(operation, answer.status);
  if (!codes)
    problems.push(`status ${answer.status} (${body.error.code}) is not documented for ${operation.operationId}`);
  else if (!codes.includes(body.error.code))
    problems.push(
      `code ${body.error.code} is not documented for ${operation.operationId} ${answer.status} (documented: ${codes.join(', ')})`,
    );
  return problems;
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Paths of the string leaves of a JSON value, e.g. `action.instruction`. */
function stringLeaves(value: unknown, path: string[] = []): Array<{ path: string[]; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringLeaves(item, [...path, String(i)]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => stringLeaves(item, [...path, key]));
  return [];
}

function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path)
    current = current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

/** Strings that were sent and read back different (stored text silently changed). */
export function changedStrings(sent: unknown, stored: unknown): string[] {
  return stringLeaves(sent).flatMap(({ path, text }) => {
    const back = at(stored, path);
    return typeof back === 'string' && back !== text
      ? [`${path.join('.')}: sent ${JSON.stringify(text.slice(0, 80))}, stored ${JSON.stringify(back.slice(0, 80))}`]
      : [];
  });
}
