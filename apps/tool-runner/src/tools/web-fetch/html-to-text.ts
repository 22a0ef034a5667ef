/**
 * Turns an HTML page into readable plain text for a model: drops scripts, styles, comments and
 * other non-content elements, removes tags (block elements become line breaks), decodes entities
 * and collapses whitespace. It is a single forward scan with no backtracking regular expressions,
 * so a hostile page (thousands of unterminated `<!--` or `<script`) costs linear time, never more.
 * The result is plain text: a decoded `&lt;script&gt;` is just the characters `<script>`.
 */

/** Elements whose content is never page text. */
const SKIPPED_CONTENT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'canvas',
  'select',
]);
/** Elements that start a new paragraph. */
const PARAGRAPHS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'table',
  'ul',
  'ol',
  'dl',
  'figure',
  'hr',
]);
/** Elements that start a new line. */
const LINES = new Set([
  'br',
  'div',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'main',
  'nav',
  'address',
  'title',
  'tr',
  'dt',
  'dd',
  'caption',
  'figcaption',
  'details',
  'summary',
  'form',
  'fieldset',
  'body',
  'html',
]);

// A Map, not an object literal: `&constructor;` must not find Object.prototype members.
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' ',
    copy: '©',
    reg: '®',
    trade: '™',
    mdash: '—',
    ndash: '–',
    hellip: '…',
    lsquo: '‘',
    rsquo: '’',
    ldquo: '“',
    rdquo: '”',
    laquo: '«',
    raquo: '»',
    middot: '·',
    bull: '•',
    euro: '€',
    pound: '£',
    yen: '¥',
    cent: '¢',
    times: '×',
    divide: '÷',
    deg: '°',
    para: '¶',
    sect: '§',
    shy: '',
  }),
);

const TAG_START = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;
const closingTags = new Map<string, RegExp>();

/** The regex finding `</name` (any case) from a position; cached, one per skipped element name. */
function closingTag(name: string): RegExp {
  let re = closingTags.get(name);
  if (!re) closingTags.set(name, (re = new RegExp(`</${name}[\\s/>]`, 'gi')));
  return re;
}

/** Index of the `>` ending a tag, skipping quoted attribute values; -1 when the tag never ends. */
function tagEnd(html: string, from: number): number {
  let afterEquals = false;
  for (let j = from; j < html.length; j++) {
    const ch = html[j];
    if (ch === '>') return j;
    if ((ch === '"' || ch === "'") && afterEquals) {
      const close = html.indexOf(ch, j + 1);
      if (close === -1) return -1;
      j = close;
      afterEquals = false;
    } else if (ch === '=') {
      afterEquals = true;
    } else if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\r') {
      afterEquals = false;
    }
  }
  return -1;
}

/** Breaks between blocks; adjacent ones merge into the strongest (`</div><div>` is one line break). */
const LINE = 1;
const PARAGRAPH = 2;
type Piece = string | typeof LINE | typeof PARAGRAPH;

function separator(name: string, closing: boolean): Piece[] {
  if (name === 'li') return closing ? [LINE] : [LINE, '- '];
  if (name === 'td' || name === 'th') return [' '];
  if (PARAGRAPHS.has(name)) return [PARAGRAPH];
  return LINES.has(name) ? [LINE] : [];
}

/** Joins text and breaks; whitespace-only text between two blocks is dropped. */
function assemble(pieces: readonly Piece[]): string {
  let text = '';
  let pending = 0;
  for (const piece of pieces) {
    if (typeof piece === 'number') {
      pending = Math.max(pending, piece);
    } else if (pending === 0 || piece.trim() !== '') {
      if (pending !== 0) text += pending === PARAGRAPH ? '\n\n' : '\n';
      pending = 0;
      text += piece;
    }
  }
  return text;
}

/** Consumes the markup starting at `lt` (a '<'), writes its separator, and returns where text resumes. */
function skipMarkup(html: string, lt: number, out: Piece[]): number {
  if (html.startsWith('<!--', lt)) {
    const end = html.indexOf('-->', lt + 4);
    return end === -1 ? html.length : end + 3;
  }
  if (html[lt + 1] === '!' || html[lt + 1] === '?') {
    const end = html.indexOf('>', lt);
    return end === -1 ? html.length : end + 1;
  }
  TAG_START.lastIndex = lt;
  const match = TAG_START.exec(html);
  if (!match?.[2]) {
    out.push('<'); // a '<' that opens no tag ("a < b") is text
    return lt + 1;
  }
  const end = tagEnd(html, lt + match[0].length);
  if (end === -1) return html.length; // an unterminated tag swallows the rest, as in a browser
  const name = match[2].toLowerCase();
  const closing = match[1] === '/';
  out.push(...separator(name, closing));
  if (closing || !SKIPPED_CONTENT.has(name) || html[end - 1] === '/') return end + 1;
  const close = closingTag(name);
  close.lastIndex = end + 1;
  const found = close.exec(html);
  return found ? found.index : html.length;
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g,
    (whole: string, dec?: string, hex?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES.get(name) ?? NAMED_ENTITIES.get(name.toLowerCase()) ?? whole;
      const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : '\uFFFD';
    },
  );
}

function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Readable text of an HTML document (see the module comment for what is kept). */
export function htmlToText(html: string): string {
  const out: Piece[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    const textEnd = lt === -1 ? html.length : lt;
    // Source whitespace is not significant in HTML; line breaks come from the elements instead.
    if (textEnd > i) out.push(html.slice(i, textEnd).replace(/\s+/g, ' '));
    if (lt === -1) break;
    i = skipMarkup(html, lt, out);
  }
  return tidy(decodeEntities(assemble(out)));
}
