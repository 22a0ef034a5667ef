/**
 * Cleans a tool name as models sometimes emit it: leaked special tokens (`<|im_end|>`,
 * `<|channel|>commentary`), a `functions.` namespace prefix, surrounding quotes, backticks or
 * whitespace, and trailing punctuation. Returns the name to look up; the raw name stays in history.
 */
export function sanitizeToolName(raw: string): string {
  let name = raw.replace(/<\|[^|>]*\|>[a-z]*/gi, ' ').trim();
  name = name.split(/\s+/)[0] ?? '';
  name = name.replace(/^[`'"]+|[`'".,;:!?)(]+$/g, '');
  name = name.replace(/^functions\./, '');
  return name;
}
