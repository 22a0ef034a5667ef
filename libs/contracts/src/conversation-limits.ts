/**
 * What a conversation's title, labels and metadata may hold (docs/conversations.md): the api's
 * request schemas and the orchestrator's store check the same bounds. They are also the quota on
 * what a tenant stores with each conversation (conversations themselves come with messages, which
 * the tier's turn limits bound).
 */
export const CONVERSATION_LIMITS = {
  /** Longest title, in characters (Unicode code points). */
  titleChars: 200,
  /** Most labels on one conversation. */
  labels: 20,
  /** Longest label, in characters. */
  labelChars: 64,
  /** Largest metadata object, in bytes of its JSON (UTF-8). */
  metadataBytes: 8192,
  /** Most `key=value` metadata filters in one listing. */
  metadataFilters: 5,
  /** Longest search text, in characters. */
  searchChars: 200,
} as const;

/** A label: letters, digits and `-_.:/` (no spaces, so a label filter is one word). */
export const CONVERSATION_LABEL_PATTERN = /^[\p{L}\p{N}_.:/-]+$/u;
