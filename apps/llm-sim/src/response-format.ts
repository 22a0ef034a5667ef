import type { ChatCompletionRequest } from './chat-request.js';
import type { RequestProblem } from './chat-request.js';

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Whether the request asks for structured output (`response_format: json_schema`). */
export function asksForJsonSchema(request: ChatCompletionRequest): boolean {
  return (request as { response_format?: { type?: unknown } }).response_format?.type === 'json_schema';
}

/** The first object schema (a path and the node) that strict mode refuses, as OpenAI words it. */
function strictProblem(node: unknown, path: string[], name: string): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const schema = node as Record<string, unknown>;
  const where = `Invalid schema for response_format '${name}': In context=(${path.map((p) => `'${p}'`).join(', ')})`;
  const properties = schema['properties'];
  if (schema['type'] === 'object' || properties !== undefined) {
    if (schema['additionalProperties'] !== false)
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
    const required = Array.isArray(schema['required']) ? (schema['required'] as unknown[]) : [];
    const missing = keys.find((key) => !required.includes(key));
    if (missing !== undefined)
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
  }
  const children: [string, unknown][] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' || key === '$defs' || key === 'definitions') {
      if (typeof value === 'object' && value !== null)
        for (const [child, sub] of Object.entries(value)) children.push([`${key}', '${child}`, sub]);
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') children.push([key, value]);
    else if ((key === 'anyOf' || key === 'allOf' || key === 'oneOf') && Array.isArray(value))
      value.forEach((sub, i) => children.push([`${key}', '${i}`, sub]));
  }
  for (const [key, sub] of children) {
    const problem = strictProblem(sub, [...path, key], name);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Checks `response_format` as OpenAI does before answering: a known type; for `json_schema`, a
 * `json_schema` object with a valid `name` and an object `schema`; in strict mode a root of type
 * object and every object closed with every property required. Undefined when acceptable.
 */
export function responseFormatProblem(request: ChatCompletionRequest): RequestProblem | undefined {
  const format = (request as { response_format?: unknown }).response_format;
  if (format === undefined || format === null) return undefined;
  if (typeof format !== 'object' || Array.isArray(format))
    return { message: "Invalid type for 'response_format': expected an object.", param: 'response_format' };
  const { type, json_schema: jsonSchema } = format as { type?: unknown; json_schema?: unknown };
  if (type === 'text' || type === 'json_object') return undefined;
  if (type !== 'json_schema')
    return {
      message: `Invalid value: '${String(type)}'. Supported values are: 'json_object', 'json_schema', and 'text'.`,
      param: 'response_format.type',
    };
  if (typeof jsonSchema !== 'object' || jsonSchema === null)
    return {
      message: "Missing required parameter: 'response_format.json_schema'.",
      param: 'response_format.json_schema',
    };
  const { name, schema, strict } = jsonSchema as { name?: unknown; schema?: unknown; strict?: unknown };
  if (typeof name !== 'string')
    return {
      message: "Missing required parameter: 'response_format.json_schema.name'.",
      param: 'response_format.json_schema.name',
    };
  if (!SCHEMA_NAME.test(name)) {
    return {
      message:
        "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
      param: 'response_format.json_schema.name',
    };
  }
  if (schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    return {
      message: "Invalid type for 'response_format.json_schema.schema': expected an object.",
      param: 'response_format.json_schema.schema',
    };
  }
  if (strict !== undefined && strict !== null && typeof strict !== 'boolean') {
    return {
      message: "Invalid type for 'response_format.json_schema.strict': expected a boolean.",
      param: 'response_format.json_schema.strict',
    };
  }
  if (strict !== true) return undefined;
  const root = (schema ?? {}) as Record<string, unknown>;
  if (root['type'] !== 'object')
    return {
      message: `Invalid schema for response_format '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(root['type'])}"'.`,
      param: 'response_format',
    };
  const problem = strictProblem(root, [], name);
  return problem ? { message: problem, param: 'response_format' } : undefined;
}
