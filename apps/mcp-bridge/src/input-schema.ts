import { z } from 'zod';

/** How a bridged tool's arguments are checked on the runner. */
export interface BridgedInput {
  /** Runs in `handleToolCall` like any tool's schema; its output is the arguments unchanged. */
  validator: z.ZodObject;
  /** The JSON Schema published in discovery: the MCP server's own, minus `$schema`. */
  published: Record<string, unknown>;
  /** Why the schema could not be converted, when the bridge fell back to accepting any object. */
  fallbackReason: string | undefined;
}

/**
 * Turns an MCP tool's input JSON Schema into the runner's validator. The converted zod schema
 * (`z.fromJSONSchema`) only gates the call, listing problems as `invalid` the way any platform tool
 * does; the original arguments are forwarded untouched, so the MCP server applies its own
 * defaults and stays the authority. A schema zod cannot convert (unresolvable `$ref`, `if`/`then`,
 * ...) falls back to "any object" and the MCP server's own validation.
 */
export function bridgedInput(inputSchema: Record<string, unknown>): BridgedInput {
  // `$schema` names the MCP server's draft (often draft-07); platform schemas carry none.
  const { $schema: _draft, ...published } = inputSchema;
  const anyObject = z.looseObject({});
  let converted: z.ZodType;
  try {
    converted = z.fromJSONSchema(inputSchema);
  } catch (err) {
    return { validator: anyObject, published, fallbackReason: (err as Error).message };
  }
  const validator = anyObject.superRefine((value, ctx) => {
    let result: z.ZodSafeParseResult<unknown>;
    try {
      result = converted.safeParse(value);
    } catch {
      // A schema that converts but cannot run (e.g. a regex JS rejects at use): the server decides.
      return;
    }
    if (result.success) return;
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });
  return { validator, published, fallbackReason: undefined };
}
