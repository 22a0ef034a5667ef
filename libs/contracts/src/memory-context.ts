/**
 * The block of recalled long-term memory the orchestrator puts in a turn's system prompt. Its
 * delimiters are part of the contract so that tooling (llm-sim's `{{recalledMemory}}` template,
 * transcript viewers, tests) can find what was injected without guessing at prose.
 */

/** Opening and closing lines of the block. */
export const MEMORY_CONTEXT_OPEN = '<long_term_memory>';
export const MEMORY_CONTEXT_CLOSE = '</long_term_memory>';

/** The line under the opening tag: how the model should treat what follows. */
const MEMORY_CONTEXT_PREAMBLE =
  'Recalled from long-term memory for this message, most relevant first. Use it when it helps; the conversation wins when they disagree, and never mention this block.';

/** Renders the block from one line per recalled item (each becomes a `- ` item). */
export function renderMemoryContext(items: readonly string[]): string {
  const lines = items.map((item) => `- ${item.replace(/\s+/g, ' ').trim()}`);
  return [MEMORY_CONTEXT_OPEN, MEMORY_CONTEXT_PREAMBLE, ...lines, MEMORY_CONTEXT_CLOSE].join('\n');
}

/** The items of every memory block in `text` (empty when it holds none). */
export function memoryContextItems(text: string): string[] {
  const items: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf(MEMORY_CONTEXT_OPEN, from);
    if (open < 0) return items;
    const close = text.indexOf(MEMORY_CONTEXT_CLOSE, open);
    const body = text.slice(open + MEMORY_CONTEXT_OPEN.length, close < 0 ? undefined : close);
    for (const line of body.split('\n')) if (line.startsWith('- ')) items.push(line.slice(2));
    if (close < 0) return items;
    from = close + MEMORY_CONTEXT_CLOSE.length;
  }
}
