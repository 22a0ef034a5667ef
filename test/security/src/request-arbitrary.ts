import fc from 'fast-check';
import { hostileString, toJsonText, type ForeignData } from './hostile-values.js';
import { exampleArbitrary, schemaArbitrary, type JsonSchema } from './schema-arbitrary.js';

/** One operation of the OpenAPI document, as far as the generator reads it. */
export interface DocumentedOperation {
  method: string;
  path: string;
  operationId: string;
  parameters?: Array<{ in: 'path' | 'query' | 'header'; name: string; schema: JsonSchema; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: JsonSchema; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { description: string; 'x-error-codes'?: string[] }>;
}

/** A request as sent on the wire: the path already percent-encoded, the body as raw bytes. */
export interface HostileRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** The JSON value the body holds (before any byte corruption), to compare with what is read back. */
  sentBody?: unknown;
  /** The body's bytes were made invalid UTF-8 on purpose. */
  corruptedBody: boolean;
}

export interface RequestArbitraryOptions {
  components: Record<string, JsonSchema>;
  foreign: ForeignData;
  /** The calling tenant's own ids by path parameter name, so that requests reach past the 404s. */
  ownIds: Record<string, readonly string[]>;
}

/**
 * Percent-encodes text the way a hostile client may put it in a URL: well-formed characters as
 * UTF-8 (like encodeURIComponent), an unpaired surrogate as its three WTF-8 bytes (which
 * encodeURIComponent refuses to write).
 */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff)
      out +=
        `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`.toUpperCase();
    else out += encodeURIComponent(char);
  }
  return out;
}

/** `arbitrary`'s value about one time in eight, null otherwise. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

/** Encodings no decoder accepts, or that decode to text that cannot be stored. */
const BAD_ENCODINGS = ['%', '%zz', '%C3%28', '%FF', '%ED%A0%80', '%00', '%E0%80%AF', '%2e%2e%2f%2e%2e%2f'] as const;

function pathValue(name: string, schema: JsonSchema, options: RequestArbitraryOptions): fc.Arbitrary<string> {
  const own = options.ownIds[name] ?? [];
  const plausible = schemaArbitrary(schema, { ...options, hostility: 0 }).map((value) =>
    typeof value === 'string' && value.length > 0 ? value : 'x',
  );
  const encoded = (text: fc.Arbitrary<string>): fc.Arbitrary<string> => text.map(percentEncode);
  return fc.oneof(
    { weight: 3, arbitrary: encoded(own.length > 0 ? fc.constantFrom(...own) : plausible) },
    { weight: 2, arbitrary: encoded(plausible) },
    {
      weight: 3,
      arbitrary: encoded(hostileString(own.length > 0 ? fc.constantFrom(...own) : plausible, options.foreign)),
    },
    // Ids as long as the documented patterns allow, and a little longer.
    { weight: 1, arbitrary: fc.integer({ min: 90, max: 140 }).map((length) => `c${'d'.repeat(length - 1)}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(plausible, fc.constantFrom(...BAD_ENCODINGS)).map(([text, bad]) => percentEncode(text) + bad),
    },
  );
}

function queryString(operation: DocumentedOperation, options: RequestArbitraryOptions): fc.Arbitrary<string> {
  const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
  if (query.length === 0)
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: fc.constantFrom('?x=%00', '?x=%ED%A0%80', '?x=%zz') },
    );
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const parameter of query)
    model[parameter.name] = schemaArbitrary(parameter.schema, { ...options, hostility: 1, deep: false });
  const values = fc.record(model, { requiredKeys: [] });
  return fc.tuple(values, rarely(fc.constantFrom(...BAD_ENCODINGS))).map(([record, bad]) => {
    const pairs = Object.entries(record).map(
      ([key, value]) => `${key}=${percentEncode(typeof value === 'string' ? value : toJsonText(value))}`,
    );
    if (bad !== null && pairs.length > 0) pairs[0] += bad;
    return pairs.length > 0 ? `?${pairs.join('&')}` : '';
  });
}

function headerValues(
  operation: DocumentedOperation,
  options: RequestArbitraryOptions,
): fc.Arbitrary<Record<string, string>> {
  const documented = (operation.parameters ?? []).filter((p) => p.in === 'header');
  const model: Record<string, fc.Arbitrary<string>> = {};
  // Header values are Latin-1 on the wire: hostile ones here are separators, NUL-free.
  for (const parameter of documented) {
    model[parameter.name] = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:/-]{1,40}$/),
      fc.constantFrom(...options.foreign.ids, '../..', 'a:b', '*', ''),
      fc.integer({ min: 190, max: 300 }).map((n) => 'k'.repeat(n)),
    );
  }
  // Now and then a header larger than the server accepts (Node refuses it before the framework sees it).
  model['x-filler'] = fc.integer({ min: 1, max: 40_000 }).map((n) => 'f'.repeat(n > 38_000 ? n : 8));
  return fc
    .record(model, { requiredKeys: [] })
    .map((record) =>
      Object.fromEntries(
        Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
      ),
    );
}

/** Inserts bytes that are not UTF-8 inside the first string value of a JSON text. */
function corruptUtf8(json: string, bad: readonly number[]): Uint8Array {
  const bytes = Buffer.from(json, 'utf8');
  const at = json.indexOf(':"');
  const cut = at < 0 ? bytes.length : Buffer.byteLength(json.slice(0, at + 2), 'utf8');
  return Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]);
}

function bodyArbitrary(
  operation: DocumentedOperation,
  options: RequestArbitraryOptions,
): fc.Arbitrary<Pick<HostileRequest, 'body' | 'sentBody' | 'corruptedBody' | 'headers'>> {
  const json = operation.requestBody?.content['application/json'];
  const emptyJson = { body: new Uint8Array(), corruptedBody: false, headers: { 'content-type': 'application/json' } };
  if (!json) {
    // Routes without a body: none, an empty one declared as JSON, or an unexpected one.
    return fc.oneof(
      fc.constant({ corruptedBody: false, headers: {} }),
      fc.constant(emptyJson),
      fc.constant({
        body: Buffer.from('{}'),
        sentBody: {},
        corruptedBody: false,
        headers: { 'content-type': 'application/json' },
      }),
    );
  }
  const examples = Object.values(json.examples ?? {}).map((e) => e.value);
  const values = fc.oneof(
    {
      weight: 3,
      arbitrary:
        examples.length > 0
          ? fc.oneof(...examples.map((example) => exampleArbitrary(example, { ...options, hostility: 1 })))
          : fc.constant({}),
    },
    { weight: 2, arbitrary: schemaArbitrary(json.schema, { ...options, hostility: 1 }) },
  );
  const corruption = rarely(
    fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]),
  );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.tuple(values, corruption).map(([value, bad]) => {
        const text = toJsonText(value);
        return {
          body: bad ? corruptUtf8(text, bad) : Buffer.from(text, 'utf8'),
          sentBody: value,
          corruptedBody: bad !== null,
          headers: { 'content-type': 'application/json' },
        };
      }),
    },
    { weight: 1, arbitrary: fc.constant(emptyJson) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{"a":', 'not json', '[1,2', '\u0000').map((text) => ({
        body: Buffer.from(text),
        corruptedBody: false,
        headers: { 'content-type': 'application/json' },
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({
        body: Buffer.from('content=hi'),
        corruptedBody: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    },
  );
}

/** Requests for one operation: each part from the operation's own schemas and examples, mixed with hostile input. */
export function requestArbitrary(
  operation: DocumentedOperation,
  options: RequestArbitraryOptions,
): fc.Arbitrary<HostileRequest> {
  const pathParameters = (operation.parameters ?? []).filter((p) => p.in === 'path');
  const pathModel: Record<string, fc.Arbitrary<string>> = {};
  for (const parameter of pathParameters)
    pathModel[parameter.name] = pathValue(parameter.name, parameter.schema, options);
  return fc
    .tuple(
      fc.record(pathModel),
      queryString(operation, options),
      headerValues(operation, options),
      bodyArbitrary(operation, options),
    )
    .map(([params, query, headers, body]) => {
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => params[name] ?? 'x');
      // A request whose headers the server refuses is sent without its body (the server closes the connection after answering).
      const oversized = (headers['x-filler']?.length ?? 0) > 16_384;
      return {
        method: operation.method.toUpperCase(),
        url: path + query,
        ...body,
        ...(oversized ? { body: undefined, sentBody: undefined } : {}),
        headers: { ...headers, ...body.headers },
      };
    });
}
