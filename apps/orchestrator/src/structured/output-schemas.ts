import type { AnswerIssue } from '@platform/agent-loop';
import { NamedError } from '@platform/contracts';
import { Ajv } from 'ajv';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** Limits of output schemas; defaults next to each. */
export interface OutputSchemaOptions {
  /** Longest schema accepted, in characters of its JSON (default 65,536). */
  maxChars: number;
  /** Compiled schemas kept, by schema text; the least recently used goes first (default 256). */
  cacheEntries: number;
  /** Issues reported of one invalid answer (default 10). */
  maxIssues: number;
}

const DEFAULT_OUTPUT_SCHEMA_OPTIONS: OutputSchemaOptions = {
  maxChars: 65_536,
  cacheEntries: 256,
  maxIssues: 10,
};

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
/** Draft-07 as schemas name it: what the `openai` client's zod helper and many generators write. */
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/** A schema that cannot be used: not a JSON Schema (draft 2020-12 or draft-07) that compiles, or too long. */
export class OutputSchemaError extends NamedError {
  readonly code = 'INVALID_OUTPUT_SCHEMA';
}

/** An output schema ready to check answers. */
export interface CompiledOutputSchema {
  /** The schema as given (a JSON object). */
  readonly schema: Record<string, unknown>;
  /** What is wrong with a value ([] = valid). */
  issuesOf(value: unknown): AnswerIssue[];
}

/**
 * Compiles output schemas (JSON Schema draft 2020-12, or draft-07 when `$schema` says so, with
 * ajv) once each: the compiled checker is
 * kept by the schema's text, so every message of a profile or a caller with the same schema reuses
 * it. References must be local (`#/$defs/…`): nothing is fetched.
 */
/** An answer that is not valid against the run's output schema is asked for again this many times. */
export const OUTPUT_RETRIES = 1;

export class OutputSchemas {
  // Made on first use: a compiler costs its meta-schemas' compilation, and most processes never need draft-07.
  private ajv2020: Ajv2020 | undefined;
  private ajv07: Ajv | undefined;
  private readonly compiled = new Map<string, CompiledOutputSchema>();

  constructor(private readonly options: OutputSchemaOptions = DEFAULT_OUTPUT_SCHEMA_OPTIONS) {}

  /** The compiler of the schema's dialect: draft 2020-12 (also when it names none) or draft-07. */
  private compilerFor(dialect: unknown): Ajv | Ajv2020 {
    if (dialect === undefined || dialect === DRAFT_2020_12 || dialect === `${DRAFT_2020_12}#`)
      return (this.ajv2020 ??= new Ajv2020({ allErrors: true, strict: false }));
    if (typeof dialect === 'string' && DRAFT_07.test(dialect))
      return (this.ajv07 ??= new Ajv({ allErrors: true, strict: false }));
    throw new OutputSchemaError(
      `the output schema's $schema ${JSON.stringify(dialect)} is not supported: use JSON Schema draft 2020-12 (${DRAFT_2020_12}, the default) or draft-07`,
    );
  }

  /** Parses and compiles a schema sent as JSON text; throws {@link OutputSchemaError} saying why not. */
  fromJson(text: string): CompiledOutputSchema {
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (err) {
      throw new OutputSchemaError(`the output schema is not JSON: ${(err as Error).message}`);
    }
    return this.compile(schema);
  }

  /** Compiles a schema (a JSON object); throws {@link OutputSchemaError} saying why not. */
  compile(schema: unknown): CompiledOutputSchema {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      throw new OutputSchemaError('the output schema must be a JSON object (a JSON Schema, draft 2020-12)');
    const text = JSON.stringify(schema);
    if (text.length > this.options.maxChars)
      throw new OutputSchemaError(
        `the output schema is ${text.length} characters of JSON; at most ${this.options.maxChars} are accepted`,
      );
    const cached = this.compiled.get(text);
    if (cached) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      this.compiled.delete(text);
      this.compiled.set(text, cached);
      return cached;
    }
    const ajv = this.compilerFor((schema as { $schema?: unknown }).$schema);
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(structuredClone(schema));
    } catch (err) {
      throw new OutputSchemaError(`the output schema does not compile: ${(err as Error).message}`);
    } finally {
      // The schema is not kept in ajv's own registry: the cache here is the only (bounded) one.
      ajv.removeSchema();
    }
    const maxIssues = this.options.maxIssues;
    const entry: CompiledOutputSchema = {
      schema: schema as Record<string, unknown>,
      issuesOf: (value) =>
        validate(value)
          ? []
          : (validate.errors ?? []).slice(0, maxIssues).map((e) => ({
              path: e.instancePath,
              message: `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`,
            })),
    };
    this.compiled.set(text, entry);
    if (this.compiled.size > this.options.cacheEntries) this.compiled.delete(this.compiled.keys().next().value!);
    return entry;
  }
}
