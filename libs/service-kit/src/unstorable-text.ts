/**
 * SQLSTATEs with which Postgres refuses text it cannot store: 22021 (character_not_in_repertoire:
 * NUL in a text value, bytes that are not UTF-8) and 22P05 (untranslatable_character: `\u0000` in
 * jsonb, or a character the database encoding cannot hold). Both are the caller's input, never a
 * fault of the service: the api refuses such text at its edge, and this catches any path that
 * reaches storage another way.
 */
const UNSTORABLE_TEXT_STATES = new Set(['22021', '22P05']);

/** Whether a database error says the text it was given cannot be stored. */
export function isUnstorableText(error: unknown): boolean {
  return error instanceof Error && UNSTORABLE_TEXT_STATES.has(String((error as { code?: unknown }).code));
}
