import { cutText, type ChatMessage } from '@platform/contracts';
import type { LoopConfig } from './loop-config.js';
import { messageChars, toUnits, type MessageUnit } from './message-units.js';

/** Per-message framing the provider adds (role, separators), in tokens. */
const MESSAGE_OVERHEAD_TOKENS = 4;

export interface TruncatedText {
  text: string;
  truncated: boolean;
  originalChars: number;
}

/**
 * All context budgeting in one place: token estimates, tool-result truncation, history trimming
 * and force trimming. It works on copies and whole message units; it never edits raw history.
 */
export class ContextManager {
  constructor(private readonly config: LoopConfig) {}

  estimateTokens(messages: readonly ChatMessage[]): number {
    let tokens = 0;
    for (const message of messages)
      tokens += Math.ceil(messageChars(message) / this.config.charsPerToken) + MESSAGE_OVERHEAD_TOKENS;
    return tokens;
  }

  /** The most characters one tool result may take in a request: a share of the context, under a hard cap. */
  maxToolResultChars(): number {
    const byShare = Math.floor(
      this.config.contextTokenLimit * this.config.maxToolResultShare * this.config.charsPerToken,
    );
    return Math.min(byShare, this.config.maxToolResultChars);
  }

  /**
   * Cuts text to `maxChars`, at a line break when one is close enough to the end to keep at least
   * `minToolResultHeadChars` (and half the budget), and says what was cut.
   */
  truncateToolResult(text: string, maxChars = this.maxToolResultChars()): TruncatedText {
    if (text.length <= maxChars) return { text, truncated: false, originalChars: text.length };
    let head = cutText(text, maxChars).text;
    const lastNewline = head.lastIndexOf('\n');
    if (lastNewline >= Math.max(this.config.minToolResultHeadChars, maxChars / 2)) head = head.slice(0, lastNewline);
    return {
      text: `${head}\n[...truncated: showing ${head.length} of ${text.length} characters]`,
      truncated: true,
      originalChars: text.length,
    };
  }

  /** The tokens a request view may hold before it is trimmed: the trim threshold of the context window. */
  private get tokenBudget(): number {
    return this.config.contextTokenLimit * this.config.contextTrimThreshold;
  }

  /** True when the messages pass the trim threshold of the context window. */
  needsTrim(messages: readonly ChatMessage[]): boolean {
    return this.estimateTokens(messages) > this.tokenBudget;
  }

  /** Keeps system messages, the question and the most recent `maxHistoryMessages` others that fit the token budget, by whole units. */
  trim(messages: readonly ChatMessage[]): ChatMessage[] {
    return this.keepLast(messages, this.config.maxHistoryMessages);
  }

  /** Trims only past the threshold (the check before every model call). */
  trimIfNeeded(messages: readonly ChatMessage[]): ChatMessage[] {
    return this.needsTrim(messages) ? this.trim(messages) : [...messages];
  }

  /** Keeps system messages and only the last few others (last step of the overflow chain). */
  forceTrim(messages: readonly ChatMessage[]): ChatMessage[] {
    return this.keepLast(messages, this.config.forceTrimMessages);
  }

  /**
   * Keeps every system unit, the turn's question (the latest user message: what the run is asked
   * to do), and the newest other units that fit in `keep` messages and in the token budget (the
   * trim threshold of the context window), the question counted among them. The newest unit is
   * always kept, even alone past either budget: a request needs the latest message. Older steps
   * of the turn may go; the question never does, however long the turn.
   */
  private keepLast(messages: readonly ChatMessage[], keep: number): ChatMessage[] {
    const units = toUnits(messages);
    const kept = new Set(units.filter((u) => u.kind === 'system'));
    const question = units.findLast((u) => u.kind === 'single' && messages[u.start]!.role === 'user');
    const newest = units.findLast((u) => u.kind !== 'system');
    if (question) kept.add(question);
    const tokensOf = (unit: MessageUnit): number => this.estimateTokens(messages.slice(unit.start, unit.end));
    let count = question ? 1 : 0;
    let tokens = [...kept].reduce((sum, unit) => sum + tokensOf(unit), 0);
    for (let i = units.length - 1; i >= 0; i--) {
      const unit = units[i]!;
      if (kept.has(unit)) continue;
      const size = unit.end - unit.start;
      const unitTokens = tokensOf(unit);
      if (unit !== newest && (count + size > keep || tokens + unitTokens > this.tokenBudget)) break;
      kept.add(unit);
      count += size;
      tokens += unitTokens;
    }
    return units.filter((u) => kept.has(u)).flatMap((u) => messages.slice(u.start, u.end));
  }
}
