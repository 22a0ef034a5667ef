import { balancedObjectSpans } from './json-scan.js';

/** The ReAct labels a reply is divided by. */
type LabelKind = 'thought' | 'action' | 'actionInput' | 'observation' | 'final';

/** One label occurrence: `start` is where the label (with its markdown prefix) begins, `end` where its content begins. */
export interface Label {
  kind: LabelKind;
  start: number;
  end: number;
  /** At the start of a line (after list bullets, quote marks, headings or bold markers). */
  anchored: boolean;
}

// Case-insensitive; tolerates markdown bold around the colon (`**Action:**`, `**Action**:`), numbered
// labels from the ReAct paper (`Thought 2:`), and `Final_Answer`. The lookbehind keeps `reaction:` and
// JSON keys (`"action":`) from counting.
const LABEL =
  /(?<![\p{L}\p{N}_"'\\])(thought|action[ \t_-]*input|action|observation|final[ \t_-]*answer)(?:[ \t]*\d+)?[ \t]*(?:\*\*|__)?[ \t]*:(?:[ \t]*(?:\*\*|__))?[ \t]*/giu;
const LINE_PREFIX = /^[ \t]*(?:(?:[>#*_-]+|\d+[.)])[ \t]*)*$/;

function kindOf(word: string): LabelKind {
  const lower = word.toLowerCase();
  if (lower.startsWith('final')) return 'final';
  if (lower.startsWith('thought')) return 'thought';
  if (lower.startsWith('observation')) return 'observation';
  return lower.includes('input') ? 'actionInput' : 'action';
}

/**
 * Finds the labels of a reply in order. Labels inside a balanced `{...}` are ignored: they are JSON
 * keys or string content (`{"text": "Final Answer: soon"}`), not structure.
 */
export function findLabels(text: string): Label[] {
  const spans = balancedObjectSpans(text);
  const inSpan = (index: number) => spans.some(([start, end]) => index > start && index < end);
  const labels: Label[] = [];
  for (const match of text.matchAll(LABEL)) {
    if (inSpan(match.index)) continue;
    const lineStart = text.lastIndexOf('\n', match.index - 1) + 1;
    const anchored = LINE_PREFIX.test(text.slice(lineStart, match.index));
    // The label owns its markdown prefix (`- `, `### `, `**`), so content before it does not end in one.
    const boldBefore = /(?:\*\*|__)$/.test(text.slice(0, match.index)) ? 2 : 0;
    const start = anchored ? lineStart : match.index - boldBefore;
    labels.push({ kind: kindOf(match[1]!), start, end: match.index + match[0].length, anchored });
  }
  return labels;
}

/**
 * Removes hidden reasoning blocks (`<think>...</think>`) that reasoning models put before the reply:
 * labels inside them are drafts, not the answer. Some chat templates strip the opening tag, so a lone
 * closing tag drops everything before it.
 */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '');
  const lone = /<\/(?:think|thinking|reasoning)>/i.exec(out);
  if (lone) out = out.slice(lone.index + lone[0].length);
  return out;
}

/** The content after `label` up to the next label accepted by `isBoundary`, or the end. */
export function labelContent(
  text: string,
  labels: readonly Label[],
  label: Label,
  isBoundary: (next: Label) => boolean,
): string {
  const next = labels.find((other) => other.start >= label.end && isBoundary(other));
  return text.slice(label.end, next ? next.start : text.length);
}

/**
 * Trims content and drops a code fence the label split left unpaired: a whole reply wrapped in
 * ``` ``` leaves the closing fence after the last label's content.
 */
export function cleanContent(content: string): string {
  const out = content.trim();
  const fences = out.match(/^[ \t]*```/gm)?.length ?? 0;
  if (fences % 2 === 0) return out;
  const trailing = /\n?[ \t]*```[ \t]*$/;
  return (trailing.test(out) ? out.replace(trailing, '') : out.replace(/^```[\w-]*[ \t]*\n?/, '')).trim();
}
