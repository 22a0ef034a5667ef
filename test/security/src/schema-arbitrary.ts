import fc from 'fast-check';
import { deepValue, hostileString, wrongType, type ForeignData } from './hostile-values.js';

/** The subset of JSON Schema (2020-12, as the api's OpenAPI document writes it) the generator reads. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

export interface SchemaArbitraryOptions {
  /** `#/components/schemas/X` resolves here. */
  components: Record<string, JsonSchema>;
  foreign: ForeignData;
  /**
   * Weight of hostile values against plausible ones at each node (0: plausible only). A request
   * is mostly plausible, so that a hostile part reaches the handlers and the storage behind them.
   */
  hostility: number;
  /** Also deeply nested values (bodies; a query parameter is flat text). Default true. */
  deep?: boolean;
}

const MAX_DEPTH = 4;

function resolve(schema: JsonSchema, options: SchemaArbitraryOptions): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = options.components[name];
  if (!target) throw new Error(`the document references ${schema.$ref}, which it does not define`);
  return resolve(target, options);
}

function plausibleString(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.pattern) {
    try {
      const pattern = new RegExp(schema.pattern);
      return fc.stringMatching(pattern).filter((s) => s.length <= (schema.maxLength ?? 200));
    } catch {
      // a pattern fast-check cannot generate from: plain strings below
    }
  }
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  return fc.string({ minLength: Math.min(schema.minLength ?? 0, maxLength), maxLength, unit: 'grapheme-ascii' });
}

function plausibleNumber(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = Math.max(schema.minimum ?? -1_000, Number.MIN_SAFE_INTEGER);
  const max = Math.min(schema.maximum ?? 1_000, Number.MAX_SAFE_INTEGER);
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.max(min, max)) })
    : fc.double({ min, max, noNaN: true });
}

function objectArbitrary(
  schema: JsonSchema,
  depth: number,
  options: SchemaArbitraryOptions,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of properties) model[key] = schemaArbitrary(property, options, depth + 1);
  const known = fc.record(model, { requiredKeys: properties.map(([key]) => key).filter((key) => required.has(key)) });
  if (properties.length > 0 && schema.additionalProperties === false) return known;
  const extra = fc.dictionary(
    fc.string({ maxLength: 12 }),
    depth < MAX_DEPTH ? fc.jsonValue({ maxDepth: 2 }) : fc.string(),
    { maxKeys: 3 },
  );
  return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }));
}

function plausibleValue(schema: JsonSchema, options: SchemaArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices)
    return fc.oneof(
      ...choices.map((choice) =>
        schemaArbitrary({ ...choice, ...(schema.type && !choice.type ? { type: schema.type } : {}) }, options, depth),
      ),
    );
  if (schema.allOf?.[0]) return schemaArbitrary(schema.allOf[0], options, depth);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string', 'number', 'object'];
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string':
          return plausibleString(schema);
        case 'integer':
          return plausibleNumber(schema, true);
        case 'number':
          return plausibleNumber(schema, false);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return depth >= MAX_DEPTH
            ? fc.constant([])
            : fc.array(
                schema.items ? schemaArbitrary(schema.items, options, depth + 1) : fc.jsonValue({ maxDepth: 1 }),
                { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) },
              );
        default:
          return depth >= MAX_DEPTH ? fc.constant({}) : objectArbitrary(schema, depth, options);
      }
    }),
  );
}

/**
 * Values for `schema`: mostly what it describes, and with weight `hostility` at every node a
 * hostile variant (unstorable or separator-laden strings, another tenant's ids, wrong types, huge
 * and deeply nested values).
 */
export function schemaArbitrary(schema: JsonSchema, options: SchemaArbitraryOptions, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, options);
  const plausible = plausibleValue(resolved, options, depth);
  if (options.hostility <= 0) return plausible;
  const isString =
    resolved.type === 'string' || (!resolved.type && !resolved.properties && !resolved.anyOf && !resolved.oneOf);
  const hostile: Array<fc.WeightedArbitrary<unknown>> = [{ weight: 1, arbitrary: wrongType() }];
  if (isString) hostile.push({ weight: 4, arbitrary: hostileString(plausibleString(resolved), options.foreign) });
  if (options.deep !== false && (depth === 0 || resolved.type === 'object' || resolved.type === 'array'))
    hostile.push({ weight: 1, arbitrary: deepValue() });
  return fc.oneof(
    { weight: 8, arbitrary: plausible },
    ...hostile.map((h) => ({ weight: h.weight * options.hostility, arbitrary: h.arbitrary })),
  );
}

/** Paths of every leaf (string, number, boolean, null) of a JSON value. */
function leafPaths(value: unknown, path: readonly string[] = []): string[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => leafPaths(item, [...path, String(i)]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => leafPaths(item, [...path, key]));
  return [[...path]];
}

function replacedAt(value: unknown, path: readonly string[], replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(value))
    return (value as unknown[]).map((item, i) => (String(i) === head ? replacedAt(item, rest, replacement) : item));
  return {
    ...(value as Record<string, unknown>),
    [head]: replacedAt((value as Record<string, unknown>)[head], rest, replacement),
  };
}

function leafAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((current, key) => (current as Record<string, unknown>)[key], value);
}

/**
 * A documented example, as it is or with one leaf made hostile (a string: unstorable characters,
 * separators, huge, another tenant's id; anything: a wrong type): requests that are valid but for
 * one part, so that the hostile part travels as far as the handlers and the storage behind them.
 */
export function exampleArbitrary(example: unknown, options: SchemaArbitraryOptions): fc.Arbitrary<unknown> {
  const leaves = leafPaths(example);
  if (leaves.length === 0 || options.hostility <= 0) return fc.constant(example);
  const mutated = fc.nat({ max: leaves.length - 1 }).chain((index) => {
    const path = leaves[index]!;
    const leaf = leafAt(example, path);
    const hostile =
      typeof leaf === 'string'
        ? fc.oneof(
            { weight: 5, arbitrary: hostileString(fc.constant(leaf), options.foreign) },
            { weight: 1, arbitrary: wrongType() },
          )
        : wrongType();
    return hostile.map((value) => replacedAt(example, path, value));
  });
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(example) },
    { weight: 4 * options.hostility, arbitrary: mutated },
  );
}
