/**
 * What an expression refers to, read with the lexical rules of filtrex's grammar (the same
 * rules in the same order, first match wins): the functions it calls (a symbol followed by `(`)
 * and the pattern of every `~=` (which must be a string literal, so it is compiled at creation).
 * Only run on an expression filtrex has parsed.
 */
export interface ScannedExpression {
  functionCalls: string[];
  patterns: string[];
  /** A `~=` whose right side is not one string literal (a field, a sum, a parenthesis). */
  dynamicPatterns: number;
}

type Token = { kind: 'string' | 'symbol' | 'punct' | 'keyword' | 'number'; text: string };

const RULES: Array<[Token['kind'], RegExp]> = [
  ['punct', /~=|==|!=|>=|<=|[*/\-+^(),<>%?:]/y],
  ['keyword', /(?:not\s+in|and|or|not|in|of|if|then|else|mod)[^\w]/y],
  ['punct', /\s+/y],
  ['number', /[0-9]+(?:\.[0-9]+)?(?![0-9.])/y],
  ['symbol', /[a-zA-Z$_][.a-zA-Z0-9$_]*/y],
  ['symbol', /'(?:\\'|\\\\|[^'\\])*'/y],
  ['string', /"(?:\\"|\\\\|[^"\\])*"/y],
];

function tokens(expression: string): Token[] {
  const out: Token[] = [];
  let at = 0;
  while (at < expression.length) {
    let matched = false;
    for (const [kind, rule] of RULES) {
      rule.lastIndex = at;
      const m = rule.exec(expression);
      if (!m) continue;
      at += m[0].length;
      matched = true;
      if (/^\s+$/.test(m[0])) break;
      // A keyword's rule takes the character after it, as filtrex's lexer does (that character is lost).
      out.push({ kind, text: kind === 'keyword' ? m[0].slice(0, -1).replace(/\s+/g, ' ') : m[0] });
      break;
    }
    if (!matched) at += 1;
  }
  return out;
}

/** The value of a quoted literal: `\\` and an escaped quote are its only escapes (filtrex's buildString). */
function unquote(literal: string): string {
  return literal.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** Operators that bind tighter than `~=`: `"a" + x` after `~=` is not one literal. */
const TIGHTER = new Set(['+', '-', '*', '/', '^', '%', 'mod', 'of']);

export function scanExpression(expression: string): ScannedExpression {
  const list = tokens(expression);
  const scanned: ScannedExpression = { functionCalls: [], patterns: [], dynamicPatterns: 0 };
  list.forEach((token, i) => {
    const next = list[i + 1];
    if (token.kind === 'symbol' && next?.text === '(')
      scanned.functionCalls.push(token.text.startsWith("'") ? unquote(token.text) : token.text);
    if (token.text !== '~=') return;
    const after = list[i + 2];
    if (next?.kind === 'string' && !(after && TIGHTER.has(after.text))) scanned.patterns.push(unquote(next.text));
    else scanned.dynamicPatterns += 1;
  });
  return scanned;
}
