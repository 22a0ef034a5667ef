import {
  CONVERSATION_LABEL_PATTERN,
  CONVERSATION_LIMITS,
  findInexactNumber,
  findUnstorableText,
} from '@platform/contracts';
import { errors } from '@platform/service-kit';
import { ErrorCodes } from '../error-codes.js';

// Checks of what a caller writes to a conversation or filters a listing by, against
// CONVERSATION_LIMITS (libs/contracts): whatever cannot be stored exactly as sent is refused.

function charsOf(text: string): number {
  let count = 0;
  for (const _char of text) count += 1;
  return count;
}

function unstorable(text: unknown, code: string, what: string): void {
  const found = findUnstorableText(text, what);
  if (found)
    throw errors.invalidArgument(
      code,
      `${found.path} holds a character that cannot be stored as text (NUL or an unpaired surrogate)`,
      {
        details: { path: found.path, index: found.index },
      },
    );
}

/** A title to store: '' removes it; at most `titleChars` characters. */
export function checkedTitle(title: string): string {
  unstorable(title, ErrorCodes.INVALID_CONVERSATION_TITLE, 'title');
  const chars = charsOf(title);
  if (chars > CONVERSATION_LIMITS.titleChars)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_CONVERSATION_TITLE,
      `title has ${chars} characters; at most ${CONVERSATION_LIMITS.titleChars} are kept`,
      { details: { maxChars: CONVERSATION_LIMITS.titleChars } },
    );
  return title;
}

/** One label's form: 1 to `labelChars` characters of CONVERSATION_LABEL_PATTERN. */
export function checkedLabel(label: string, code: string = ErrorCodes.INVALID_CONVERSATION_LABELS): string {
  if (!label || charsOf(label) > CONVERSATION_LIMITS.labelChars || !CONVERSATION_LABEL_PATTERN.test(label))
    throw errors.invalidArgument(
      code,
      `label '${label.slice(0, 80)}' must be 1-${CONVERSATION_LIMITS.labelChars} letters, digits or "-_.:/"`,
      { details: { label: label.slice(0, 80) } },
    );
  return label;
}

/** Labels to store: each well-formed, no repeats, at most `labels` of them. */
export function checkedLabels(labels: string[]): string[] {
  if (labels.length > CONVERSATION_LIMITS.labels)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_CONVERSATION_LABELS,
      `${labels.length} labels; a conversation has at most ${CONVERSATION_LIMITS.labels}`,
      { details: { maxLabels: CONVERSATION_LIMITS.labels } },
    );
  const seen = new Set<string>();
  for (const label of labels) {
    checkedLabel(label);
    if (seen.has(label))
      throw errors.invalidArgument(ErrorCodes.INVALID_CONVERSATION_LABELS, `label '${label}' is given twice`, {
        details: { label },
      });
    seen.add(label);
  }
  return labels;
}

/** Metadata to store: a JSON object of at most `metadataBytes` bytes of JSON text. */
export function checkedMetadata(json: string): string {
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > CONVERSATION_LIMITS.metadataBytes)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_CONVERSATION_METADATA,
      `metadata is ${bytes} bytes of JSON; at most ${CONVERSATION_LIMITS.metadataBytes} are kept`,
      { details: { maxBytes: CONVERSATION_LIMITS.metadataBytes } },
    );
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw errors.invalidArgument(ErrorCodes.INVALID_CONVERSATION_METADATA, 'metadata_json is not JSON');
  }
  // A number a client's JSON parser cannot hold exactly (an integer past 2^53, 1e400, 0.1000000000000000000001)
  // would come back as another number: refused, so what is read back is what was written.
  const inexact = findInexactNumber(json, 'metadata');
  if (inexact)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_CONVERSATION_METADATA,
      `${inexact.path} is the number ${inexact.source}, which JSON readers cannot keep exactly; send it as a string`,
      { details: { path: inexact.path } },
    );
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw errors.invalidArgument(ErrorCodes.INVALID_CONVERSATION_METADATA, 'metadata must be a JSON object');
  unstorable(value, ErrorCodes.INVALID_CONVERSATION_METADATA, 'metadata');
  return json;
}

/** `key=value` metadata filters as one JSON object (a listing keeps conversations that contain it). */
export function metadataFilterOf(filters: string[]): string | undefined {
  if (filters.length === 0) return undefined;
  if (filters.length > CONVERSATION_LIMITS.metadataFilters)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_CONVERSATION_FILTER,
      `at most ${CONVERSATION_LIMITS.metadataFilters} metadata filters`,
    );
  const wanted: Record<string, string> = {};
  for (const filter of filters) {
    const at = filter.indexOf('=');
    if (at < 1)
      throw errors.invalidArgument(
        ErrorCodes.INVALID_CONVERSATION_FILTER,
        `metadata filter '${filter.slice(0, 80)}' is not key=value`,
      );
    wanted[filter.slice(0, at)] = filter.slice(at + 1);
  }
  unstorable(wanted, ErrorCodes.INVALID_CONVERSATION_FILTER, 'metadata');
  return JSON.stringify(wanted);
}

/** A search text for titles, as an ILIKE pattern (its `%`, `_` and `\\` matched literally). */
export function searchPatternOf(search: string): string | undefined {
  if (!search) return undefined;
  if (charsOf(search) > CONVERSATION_LIMITS.searchChars)
    throw errors.invalidArgument(
      ErrorCodes.INVALID_CONVERSATION_FILTER,
      `search is longer than ${CONVERSATION_LIMITS.searchChars} characters`,
    );
  unstorable(search, ErrorCodes.INVALID_CONVERSATION_FILTER, 'search');
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
