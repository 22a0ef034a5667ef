import type { ChatMessage } from '@platform/contracts';
import type { ToolDescription } from './tool-port.js';

export interface TurnInputParts {
  /** The persona. */
  systemPrompt: string;
  now: Date;
  /** The user's IANA time zone (default UTC). */
  timeZone?: string;
  capabilities: readonly ToolDescription[];
  /** Recalled long-term memories relevant to the message. */
  memories?: readonly string[];
  history: readonly ChatMessage[];
  userMessage: string;
  /** The result of an agent that completed before this turn (a waiting agent the message resumed). */
  agentResult?: string;
}

/** Formatters by time zone (null: a zone this runtime does not know): building one is far dearer than using it. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'short' });
    } catch {
      formatter = null;
    }
    // Bounded: callers choose zone names, and a name that is not a zone is remembered too.
    if (formatters.size < 1_000) formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `name` is an IANA time zone this runtime knows (the framework context can show its time). */
export function isTimeZone(name: string): boolean {
  return formatterFor(name) !== null;
}

function localTime(now: Date, timeZone: string): string {
  const formatter = formatterFor(timeZone);
  return formatter ? formatter.format(now) : now.toISOString();
}

/**
 * Assembles a turn's input: the persona plus framework context (time in the user's zone,
 * capabilities), recalled memories, history, the new message, and any agent result.
 */
export function assembleTurnInput(parts: TurnInputParts): ChatMessage[] {
  const timeZone = parts.timeZone ?? 'UTC';
  const capabilities = parts.capabilities.length
    ? parts.capabilities.map((c) => `- ${c.name}: ${c.description}`).join('\n')
    : '- (no tools are available right now)';
  const system = [
    parts.systemPrompt.trim(),
    `Current time: ${localTime(parts.now, timeZone)} (${timeZone}).`,
    `You can use these capabilities:\n${capabilities}`,
  ].join('\n\n');
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  if (parts.memories?.length)
    messages.push({
      role: 'system',
      content: `Relevant things you know about the user:\n${parts.memories.map((m) => `- ${m}`).join('\n')}`,
    });
  messages.push(...parts.history.filter((m) => m.role !== 'system'));
  messages.push({ role: 'user', content: parts.userMessage });
  if (parts.agentResult)
    messages.push({ role: 'system', content: `Result of the task the user just completed: ${parts.agentResult}` });
  return messages;
}
