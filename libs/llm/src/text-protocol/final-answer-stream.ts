import { findLabels } from './react-labels.js';

/** How a reply's text may stream to the caller. */
export type StreamMode = 'final-only' | 'final-or-prose';

// Enough characters to tell whether a reply opens with a protocol label ("final answer:" is 13).
const DECIDE_AFTER_CHARS = 16;
const OPENS_WITH_LABEL = /^[\s>#*_-]*(?:thought|action|observation|final[ \t_-]*answer)/i;

/**
 * Wraps a text-delta callback so protocol text (thoughts, action JSON) never streams to the user:
 * only what follows a line-anchored `Final Answer:` label is passed on. In `final-or-prose` mode (an
 * answer-only reply) a reply that does not open with a label streams as it is, since it is all answer.
 * The assembled message stays authoritative; streaming is a preview.
 */
export function finalAnswerStream(onTextDelta: (delta: string) => void, mode: StreamMode): (delta: string) => void {
  let buffer = '';
  let streaming = false;
  let leading = true;

  const emit = (text: string) => {
    // Drop the spaces and newlines between the label and the answer, even across deltas.
    const out = leading ? text.trimStart() : text;
    if (!out) return;
    leading = false;
    onTextDelta(out);
  };

  return (delta: string) => {
    if (streaming) return emit(delta);
    buffer += delta;
    // A label is only complete once its colon arrives; rescanning only then keeps long replies cheap.
    const final = delta.includes(':')
      ? findLabels(buffer).find((label) => label.kind === 'final' && label.anchored)
      : undefined;
    if (final) {
      streaming = true;
      return emit(buffer.slice(final.end));
    }
    const opening = buffer.trimStart();
    if (
      mode === 'final-or-prose' &&
      (opening.length >= DECIDE_AFTER_CHARS || opening.includes('\n')) &&
      !OPENS_WITH_LABEL.test(opening)
    ) {
      streaming = true;
      leading = false;
      onTextDelta(buffer);
    }
  };
}
