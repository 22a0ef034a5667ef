import fc from 'fast-check';

/** Ids and text of the other tenant (B), which tenant A's requests name and its answers must never hold. */
export interface ForeignData {
  /** B's ids (runs, conversations, tasks, credential accounts, calls): A may send them, never read what they hold. */
  ids: readonly string[];
  /** Text only B wrote (message content, task names): it must never appear in an answer to A. */
  secrets: readonly string[];
}

/** Characters that cannot be stored as text (NUL) or as UTF-8 at all (unpaired surrogates). */
const UNSTORABLE = ['\u0000', '\u0000', 'x\u0000y', '\ud800', '\udfff', 'a\udc00b', '\ud83d'] as const;

/** Separators and traversal that a key, subject or path built from client input must survive. */
const SEPARATORS = [
  ':',
  '/',
  '..',
  '../..',
  '%2e%2e%2f',
  '.',
  '*',
  '>',
  '\\',
  '|',
  '#',
  '?',
  '&',
  ' ',
  '\t',
  '\n',
] as const;

/** `text` with `insert` put at a position fast-check chooses. */
function inserted(text: fc.Arbitrary<string>, insert: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(text, insert, fc.nat()).map(([base, extra, at]) => {
    const index = base.length === 0 ? 0 : at % (base.length + 1);
    return base.slice(0, index) + extra + base.slice(index);
  });
}

/** Hostile strings derived from a plausible one: unstorable characters in it, separators, a huge copy, another tenant's id. */
export function hostileString(plausible: fc.Arbitrary<string>, foreign: ForeignData): fc.Arbitrary<string> {
  const foreignIds = foreign.ids.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...foreign.ids) }] : [];
  return fc.oneof(
    { weight: 5, arbitrary: inserted(plausible, fc.constantFrom(...UNSTORABLE)) },
    { weight: 2, arbitrary: inserted(plausible, fc.constantFrom(...SEPARATORS)) },
    {
      weight: 1,
      arbitrary: plausible.map((text) => (text || 'x').repeat(Math.ceil(70_000 / Math.max(1, text.length)))),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '0',
        '-1',
        'null',
        'undefined',
        '__proto__',
        'constructor',
        '1e309',
        '😀'.repeat(300),
      ),
    },
    ...foreignIds,
  );
}

/** A value of any JSON type, to stand where the schema wants another. */
export function wrongType(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.constantFrom(1e308, -0, 2 ** 53 + 1, -(2 ** 63)),
    fc.string({ maxLength: 8 }),
    fc.constant([]),
    fc.constant({}),
    fc.constant(JSON.parse('{"__proto__":{"polluted":true}}') as unknown),
  );
}

/** An array or object nested `depth` deep; {@link toJsonText} writes it out (building it as a value would overflow the generator's own stack). */
class DeepJson {
  constructor(
    readonly depth: number,
    readonly arrays: boolean,
  ) {}

  text(): string {
    return this.arrays
      ? `${'['.repeat(this.depth)}"bottom"${']'.repeat(this.depth)}`
      : `${'{"a":'.repeat(this.depth)}"bottom"${'}'.repeat(this.depth)}`;
  }
}

/** A nesting deep enough that a parser or a walker that recurses may overflow on it. */
export function deepValue(): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.integer({ min: 2_000, max: 100_000 }), fc.boolean())
    .map(([depth, arrays]) => new DeepJson(depth, arrays));
}

/** JSON text of a generated value, {@link DeepJson} written out in place. */
export function toJsonText(value: unknown): string {
  const deep: DeepJson[] = [];
  const text =
    JSON.stringify(value, (_key, item: unknown) =>
      item instanceof DeepJson ? `\u0001deep${deep.push(item) - 1}\u0001` : item,
    ) ?? 'null';
  return text.replace(/"\\u0001deep(\d+)\\u0001"/g, (_, index: string) => deep[Number(index)]!.text());
}
