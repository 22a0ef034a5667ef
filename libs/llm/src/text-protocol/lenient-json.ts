import { isQuote, scanString } from './json-scan.js';

/** A value as JSON can express it. */
type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The outcome of a lenient parse: the value (and whether it needed repair), or why the text could not be read. */
export type LenientJsonResult = { ok: true; value: JsonValue; repaired: boolean } | { ok: false; error: string };

class LenientSyntaxError extends Error {}

// Lower-cased; Python and JavaScript spellings (True, None, undefined) are what models carry over from code.
const LITERALS = new Map<string, JsonValue>([
  ['true', true],
  ['false', false],
  ['null', null],
  ['none', null],
  ['undefined', null],
  ['nil', null],
]);
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const BARE_KEY = /[\p{L}_$][\p{L}\p{N}_$.-]*/uy;
const BARE_START = /[\p{L}\p{N}_$+\-./]/u;

/**
 * A recursive-descent reader for the JSON dialects models actually write: single or smart quotes,
 * unquoted keys and bare-word values, trailing or missing commas, Python literals, comments, and
 * missing closing brackets or quotes at the end of a truncated reply. It still rejects text with no
 * recognisable structure (a key without a colon, stray punctuation), so garbage stays an error.
 * Keys may also be followed by `=`, so keyword-call arguments read as an object.
 */
class LenientParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parse(): JsonValue {
    this.skipSpace();
    if (this.pos >= this.text.length) throw new LenientSyntaxError('the text is empty');
    return this.value([]);
  }

  private value(closers: readonly string[]): JsonValue {
    this.skipSpace();
    const ch = this.text[this.pos];
    if (ch === undefined) throw new LenientSyntaxError('the text ends where a value should be');
    if (ch === '{') return this.object(closers);
    if (ch === '[') return this.array(closers);
    if (isQuote(ch)) return this.string();
    return this.bareValue();
  }

  private object(closers: readonly string[]): JsonValue {
    this.pos++;
    const inner = [...closers, '}'];
    const entries: Array<[string, JsonValue]> = [];
    for (;;) {
      this.skipSeparators();
      const ch = this.text[this.pos];
      // End of text: the reply was cut off, close the object here.
      if (ch === undefined) break;
      if (ch === '}') {
        this.pos++;
        break;
      }
      // A closer an outer bracket expects: this object's `}` was forgotten.
      if (closers.includes(ch)) break;
      const key = this.key();
      this.skipSpace();
      if (this.text[this.pos] !== ':' && this.text[this.pos] !== '=')
        throw new LenientSyntaxError(`expected ":" after the key "${key}"`);
      this.pos++;
      entries.push([key, this.value(inner)]);
    }
    // fromEntries defines own properties, so a "__proto__" key cannot reach the prototype.
    return Object.fromEntries<JsonValue>(entries);
  }

  private array(closers: readonly string[]): JsonValue {
    this.pos++;
    const inner = [...closers, ']'];
    const items: JsonValue[] = [];
    for (;;) {
      this.skipSeparators();
      const ch = this.text[this.pos];
      if (ch === undefined) break;
      if (ch === ']') {
        this.pos++;
        break;
      }
      if (closers.includes(ch)) break;
      items.push(this.value(inner));
      this.skipSpace();
      if (this.text[this.pos] === ':') throw new LenientSyntaxError('unexpected ":" inside an array');
    }
    return items;
  }

  private key(): string {
    if (isQuote(this.text[this.pos])) return this.string();
    BARE_KEY.lastIndex = this.pos;
    const match = BARE_KEY.exec(this.text);
    if (!match) throw new LenientSyntaxError(`unexpected "${this.text[this.pos] ?? ''}" where a key should be`);
    this.pos += match[0].length;
    return match[0];
  }

  private string(): string {
    const scanned = scanString(this.text, this.pos);
    this.pos = scanned.end;
    return scanned.value;
  }

  /** A literal, a number, or an unquoted word (`{tool: search}`), read up to the next separator. */
  private bareValue(): JsonValue {
    const start = this.pos;
    if (!BARE_START.test(this.text[start] ?? ''))
      throw new LenientSyntaxError(`unexpected "${this.text[start] ?? ''}" where a value should be`);
    let end = start;
    while (end < this.text.length && !',}]\n'.includes(this.text[end]!) && !this.startsAfterSpace(end)) end++;
    this.pos = end;
    const token = this.text.slice(start, end).trim();
    const literal = LITERALS.get(token.toLowerCase());
    if (literal !== undefined) return literal;
    if (NUMBER.test(token)) return Number(token);
    return token;
  }

  /** A quote or comment after a space ends a bare value: `1 "b": 2` (missing comma), `1 // note`. */
  private startsAfterSpace(index: number): boolean {
    if (!/\s/.test(this.text[index - 1] ?? '')) return false;
    return isQuote(this.text[index]) || this.text.startsWith('//', index) || this.text.startsWith('/*', index);
  }

  private skipSeparators(): void {
    this.skipSpace();
    while (this.text[this.pos] === ',') {
      this.pos++;
      this.skipSpace();
    }
  }

  /** Skips whitespace and comments (`// ...`, `/* ... *\/`), which some models add to JSON. */
  private skipSpace(): void {
    for (;;) {
      while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
      if (this.text.startsWith('//', this.pos)) {
        const end = this.text.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.text.length : end;
      } else if (this.text.startsWith('/*', this.pos)) {
        const end = this.text.indexOf('*/', this.pos + 2);
        this.pos = end === -1 ? this.text.length : end + 2;
      } else return;
    }
  }
}

/**
 * Parses model-written JSON: strict `JSON.parse` first (so valid text is read exactly), then the
 * lenient reader. `repaired` tells whether the lenient path was needed.
 */
export function parseLenientJson(text: string): LenientJsonResult {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue, repaired: false };
  } catch {
    // Not strict JSON; fall through to the repairing reader.
  }
  try {
    return { ok: true, value: new LenientParser(text).parse(), repaired: true };
  } catch (error) {
    if (error instanceof LenientSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}
