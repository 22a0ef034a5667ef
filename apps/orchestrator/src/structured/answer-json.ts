/** A whole answer in one fenced block (```json … ``` or ``` … ```): the only wrapping accepted. */
const FENCED = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/;

/**
 * Reads a final answer as one JSON value: the answer's whole text, or the whole of one ```json
 * fenced block. Nothing looser (no JSON picked out of prose): an answer with anything around
 * its JSON is refused, so the model is asked again.
 */
export function readAnswerJson(answer: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const trimmed = answer.trim();
  const text = FENCED.exec(trimmed)?.[1] ?? trimmed;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: `the answer is not JSON: ${(err as Error).message}` };
  }
}
