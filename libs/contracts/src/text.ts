/**
 * Cuts text to `maxChars` UTF-16 units without splitting a surrogate pair: half an emoji is a lone
 * surrogate, which Postgres refuses in jsonb and model providers may refuse in a request.
 */
export function cutText(text: string, maxChars: number): { text: string; cut: boolean } {
  if (text.length <= maxChars) return { text, cut: false };
  let end = Math.max(0, maxChars);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), cut: true };
}

/** `text` cut to `maxChars` (see {@link cutText}) with `marker` after a cut, all within `maxChars`. */
export function shortenText(text: string, maxChars: number, marker = '…'): string {
  if (text.length <= maxChars) return text;
  return `${cutText(text, maxChars - marker.length).text}${marker}`;
}
