/**
 * Reads the prompts the memory service sends (see apps/memory's extractor): a `CURRENT FACTS`
 * block of `<id>: <subject> <predicate> <object>` lines, and a `TURN` of `[seq N] <role>: <text>`
 * lines. Anything else is ignored, so a prompt worded differently still gets a valid (if emptier)
 * answer rather than an error.
 */

/** One message of the turn as the prompt renders it. */
export interface TurnLine {
  seq: number;
  /** `user`, `assistant`, `system`, or `tool` (for `tool result of <name>`). */
  role: string;
  /** The tool's name for a tool result, else undefined. */
  toolName: string | undefined;
  text: string;
}

/** A current fact offered to the extractor as a supersession candidate. */
export interface CandidateLine {
  id: string;
  /** `<subject> <predicate> <object>` as the prompt shows it. */
  text: string;
}

const TURN_LINE = /^\[seq (\d+)\] (?:(user|assistant|system): |tool result of ([^:(]+?)(?: \(error\))?: )(.*)$/;
const CANDIDATE_LINE = /^([A-Za-z0-9_-]{1,100}): (\S.*)$/;

/** Turn lines of a prompt; continuation lines (a multi-line message) are joined to their message. */
export function turnLinesOf(prompt: string): TurnLine[] {
  const lines: TurnLine[] = [];
  for (const raw of prompt.split('\n')) {
    const match = TURN_LINE.exec(raw);
    if (match) {
      const toolName = match[3]?.trim();
      lines.push({
        seq: Number(match[1]),
        role: toolName ? 'tool' : (match[2] ?? 'user'),
        toolName,
        text: match[4] ?? '',
      });
    } else if (lines.length > 0 && raw.trim() !== '' && !/^[A-Z ]+:$/.test(raw.trim())) {
      const last = lines[lines.length - 1];
      if (last) last.text += `\n${raw}`;
    }
  }
  return lines;
}

/** Candidate facts listed under `CURRENT FACTS` (up to the first blank line). */
export function candidatesOf(prompt: string): CandidateLine[] {
  const start = prompt.search(/^CURRENT FACTS\b.*$/m);
  if (start < 0) return [];
  const block = prompt.slice(start).split('\n').slice(1);
  const candidates: CandidateLine[] = [];
  for (const line of block) {
    if (line.trim() === '') break;
    const match = CANDIDATE_LINE.exec(line.trim());
    if (match?.[1] && match[2]) candidates.push({ id: match[1], text: match[2] });
  }
  return candidates;
}
