import type { RunEventEnvelope } from '@platform/contracts';
import type { SseStream } from '../events/sse.js';
import { answerStream } from '../turns/answer-stream.js';
import { messageIdOf, outputMessage, responseObject, type ResponseFacts } from './responses-object.js';

/**
 * The final event of a streamed response, by the status it ended with. The `openai` client's
 * ResponseStreamEvent has no `response.cancelled`: its terminal events are `response.completed`,
 * `response.failed` and `response.incomplete`, each carrying a Response whose `status` may be
 * `cancelled`. A cancelled run ends with `response.incomplete` (it stopped before its answer, as
 * an incomplete one does; it did not fail), its response's status `cancelled`.
 */
const FINAL_EVENT = {
  completed: 'response.completed',
  failed: 'response.failed',
  incomplete: 'response.incomplete',
  cancelled: 'response.incomplete',
} as const;

/**
 * Renders a run's events as the Responses API's stream: `response.created`, `response.in_progress`,
 * the one output message item (`response.output_item.added`, `response.content_part.added`, the
 * answer as `response.output_text.delta` events, then the `.done` events), and
 * `response.completed` (or `response.failed` / `response.incomplete`) with the whole response.
 * The item opens with the answer's first text: a failed run has none (its message is the
 * response's `error`, as when not streamed). Each event carries `sequence_number`, counting from 0.
 */
export function responseEventRenderer(
  /** The response's facts but the run's state; `runId` is read when the stream starts (a keyed repeat's run). */
  facts: () => Omit<ResponseFacts, 'runStatus' | 'result'>,
  structured: boolean,
): (stream: SseStream, event: RunEventEnvelope) => void {
  let sequence = 0;
  let text = '';
  let itemOpen = false;
  const send = (stream: SseStream, type: string, fields: Record<string, unknown>): void =>
    stream.send(type, { type, sequence_number: sequence++, ...fields });
  const at = () => ({ item_id: messageIdOf(facts().runId), output_index: 0, content_index: 0 });
  const openItem = (stream: SseStream): void => {
    if (itemOpen) return;
    itemOpen = true;
    send(stream, 'response.output_item.added', {
      output_index: 0,
      item: outputMessage(facts().runId, '', 'in_progress'),
    });
    send(stream, 'response.content_part.added', { ...at(), part: { type: 'output_text', text: '', annotations: [] } });
  };
  const delta = (stream: SseStream, piece: string): void => {
    openItem(stream);
    text += piece;
    send(stream, 'response.output_text.delta', { ...at(), delta: piece, logprobs: [] });
  };
  return answerStream({
    structured,
    start: (stream) => {
      const started = responseObject({ ...facts(), runStatus: 'running' });
      send(stream, 'response.created', { response: started });
      send(stream, 'response.in_progress', { response: started });
    },
    delta,
    end: (stream, result, rest) => {
      const finished = responseObject({ ...facts(), runStatus: result.status ?? 'completed', result });
      const final = FINAL_EVENT[finished.status as keyof typeof FINAL_EVENT] ?? 'response.completed';
      // A failed run's message is its `error` only, as in a response that is not streamed.
      if (finished.status === 'failed') {
        send(stream, final, { response: finished });
        return;
      }
      if (rest) delta(stream, rest);
      if (!itemOpen) {
        send(stream, final, { response: finished });
        return;
      }
      const item = outputMessage(facts().runId, text, finished.status === 'completed' ? 'completed' : 'incomplete');
      send(stream, 'response.output_text.done', { ...at(), text, logprobs: [] });
      send(stream, 'response.content_part.done', { ...at(), part: item.content[0] });
      send(stream, 'response.output_item.done', { output_index: 0, item });
      send(stream, final, { response: { ...finished, output: [item] } });
    },
  });
}
