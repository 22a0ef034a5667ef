/** Marker appended to output cut at the source, so the model knows it saw only a part. */
const TRUNCATION_MARKER = '\n[...truncated by the tool runner]';

export interface TruncatedOutput {
  output: unknown;
  truncated: boolean;
}

/**
 * Keeps a result within `maxBytes` of JSON. An oversized result becomes its JSON text cut at a
 * line boundary where possible (keeping at least half), with a marker; smaller results pass as is.
 */
export function truncateOutput(output: unknown, maxBytes: number): TruncatedOutput {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { output, truncated: false };
  const budget = Math.max(0, maxBytes - Buffer.byteLength(TRUNCATION_MARKER, 'utf8'));
  let cut = Buffer.from(text, 'utf8')
    .subarray(0, budget)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const lastNewline = cut.lastIndexOf('\n');
  if (lastNewline > cut.length / 2) cut = cut.slice(0, lastNewline);
  return { output: cut + TRUNCATION_MARKER, truncated: true };
}
