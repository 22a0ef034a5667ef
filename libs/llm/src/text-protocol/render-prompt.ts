import type { ToolSchema } from '@platform/agent-loop';

/** One tool as a prompt line: name, description, and its argument schema as compact JSON. */
export function describeTool(tool: ToolSchema): string {
  // One line per tool keeps the list scannable for small models; a trailing period is re-added once.
  const description =
    tool.description
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.\s]+$/, '') || 'No description';
  return `- ${tool.name}: ${description}. Arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`;
}

/**
 * The system section that teaches the text protocol: the tools, then the reply format. The wording
 * matches what `parseReActReply` reads best (strict JSON, one action), while the parser stays
 * lenient for models that drift from it.
 */
export function renderToolProtocol(tools: readonly ToolSchema[]): string {
  return [
    '# Tools',
    'You can use the tools below. You call a tool by writing an action in your reply, in the format described next; its result comes back to you in the following message.',
    '',
    ...tools.map(describeTool),
    '',
    '# Reply format',
    'Start every reply with your reasoning:',
    'Thought: <what you know so far and what to do next>',
    'Then write exactly one of these two:',
    'Action: {"tool": "<tool name>", "arguments": {<arguments matching the tool\'s schema>}}',
    'Final Answer: <your answer for the user>',
    '',
    'Rules:',
    '- One action per reply. Stop right after it: the result arrives in the next message as "Observation: ...". Never write an observation yourself.',
    '- The JSON after "Action:" must be valid: double quotes, no comments, no trailing commas, and "arguments" is always an object.',
    '- Use only the tools listed above.',
    '- Write "Final Answer:" once you can answer without calling another tool.',
  ].join('\n');
}

/** The section used when tools are off for this reply (the final summary after the turn limit). */
export function renderAnswerOnlyProtocol(): string {
  return [
    '# Reply format',
    'Tools are not available for this reply, so do not write an "Action:" or a "Thought:". Answer with what you know so far, in this form:',
    'Final Answer: <your answer for the user>',
  ].join('\n');
}

/**
 * The rule added to the reply format when the answer must match a JSON Schema (a request's
 * `responseFormat`): the protocol's own text replies cannot be held to the schema by the provider,
 * so the final answer's shape is asked for here, and the caller checks it.
 */
export function renderAnswerSchemaRule(schema: Record<string, unknown>): string {
  return [
    '# Answer format',
    'Your final answer (the text after "Final Answer:") must be one JSON value and nothing else, valid against this JSON Schema:',
    JSON.stringify(schema),
  ].join('\n');
}
