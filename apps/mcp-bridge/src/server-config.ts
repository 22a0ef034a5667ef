import { SideEffect } from '@platform/contracts';
import { z } from 'zod';

/** `${NAME}` in header and env values is replaced with that environment variable, so secrets stay out of the JSON. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function expandable(env: NodeJS.ProcessEnv) {
  return z.string().transform((value, ctx) =>
    value.replace(VARIABLE, (_match, name: string) => {
      const resolved = env[name];
      if (resolved === undefined) ctx.addIssue({ code: 'custom', message: `refers to \${${name}}, which is not set` });
      return resolved ?? '';
    }),
  );
}

/** Server names become tool-name prefixes and log fields, so they are held to the tool-name alphabet. */
const ServerName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 letters, digits, "_" or "-"');

function commonFields() {
  return {
    name: ServerName,
    /** Prepended to every MCP tool name; default `<name>_`. */
    toolPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]{0,32}$/, 'must be at most 32 letters, digits, "_" or "-"')
      .optional(),
    /** Only these MCP tool names are served (original MCP names, before prefixing). */
    include: z.array(z.string().min(1)).optional(),
    /** These MCP tool names are never served; applied after `include`. */
    exclude: z.array(z.string().min(1)).default([]),
    /** Longest a call to one of this server's tools may run (the caller's deadline may cut it shorter). */
    timeoutMs: z.number().int().positive().max(3_600_000).default(30_000),
    /** MCP tools may act on the world, so callers must not retry them blindly unless told otherwise. */
    sideEffect: SideEffect.default('external'),
    requiresApproval: z.boolean().default(false),
  };
}

/** Builds the schema of one configured MCP server; `env` resolves `${VAR}` references. */
export function mcpServerSchema(env: NodeJS.ProcessEnv = process.env) {
  const stdio = z.strictObject({
    ...commonFields(),
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the small safe environment the MCP SDK passes to children (PATH, HOME, ...). */
    env: z.record(z.string(), expandable(env)).default({}),
    cwd: z.string().min(1).optional(),
  });
  const http = z.strictObject({
    ...commonFields(),
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    headers: z.record(z.string(), expandable(env)).default({}),
  });
  return z.discriminatedUnion('transport', [stdio, http]);
}

export type McpServerConfig = z.output<ReturnType<typeof mcpServerSchema>>;

/** A non-empty list of servers with unique names (their tools would otherwise fight over prefixes). */
export function mcpServerListSchema(env: NodeJS.ProcessEnv = process.env) {
  return z
    .array(mcpServerSchema(env))
    .min(1, 'configure at least one MCP server')
    .superRefine((servers, ctx) => {
      const seen = new Set<string>();
      servers.forEach((server, index) => {
        if (seen.has(server.name))
          ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate server name '${server.name}'` });
        seen.add(server.name);
      });
    });
}

/** The prefix actually used for a server's tools. */
export function toolPrefixOf(server: Pick<McpServerConfig, 'name' | 'toolPrefix'>): string {
  return server.toolPrefix ?? `${server.name}_`;
}
