import { cutText } from '@platform/contracts';

/** Why a reply could not be read as a ReAct step. */
type ReActParseErrorCode =
  | 'no_action_or_final'
  | 'invalid_json'
  | 'not_object'
  | 'missing_tool'
  | 'invalid_tool_name'
  | 'arguments_not_object'
  | 'empty_final_answer';

/** A typed parse failure; `message` is written for the model, which gets it back as an observation. */
export interface ReActParseError {
  code: ReActParseErrorCode;
  message: string;
}

/** What a model reply under the text protocol means. */
export type ReActReply =
  | {
      kind: 'action';
      thought: string | null;
      tool: string;
      arguments: Record<string, unknown>;
      /** True when the action JSON was not strict JSON and had to be repaired. */
      repaired: boolean;
    }
  | { kind: 'final'; thought: string | null; answer: string }
  | { kind: 'error'; thought: string | null; error: ReActParseError };

/** The step a reply describes, before its thought is attached. */
export type ReActStep =
  | { kind: 'action'; tool: string; arguments: Record<string, unknown>; repaired: boolean }
  | { kind: 'final'; answer: string }
  | { kind: 'error'; error: ReActParseError };

const SNIPPET_CHARS = 80;
/** The platform's limit on tool-call names (the `ToolCall` contract). */
export const MAX_TOOL_NAME_CHARS = 256;

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_CHARS ? `${cutText(flat, SNIPPET_CHARS).text}...` : flat;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Builders for each failure, so the wording stays consistent and tells the model how to fix it. */
export const parseErrors = {
  noActionOrFinal: (): ReActParseError => ({
    code: 'no_action_or_final',
    message: 'the reply has neither an "Action:" nor a "Final Answer:"',
  }),
  invalidJson: (actionText: string, detail?: string): ReActParseError => ({
    code: 'invalid_json',
    message: `could not read a JSON object from the action text "${snippet(actionText)}"${detail ? ` (${detail})` : ''}`,
  }),
  notObject: (value: unknown): ReActParseError => ({
    code: 'not_object',
    message: `the action JSON must be an object, but it is ${describe(value)}`,
  }),
  missingTool: (): ReActParseError => ({
    code: 'missing_tool',
    message: 'the action JSON has no tool name; put it under "tool"',
  }),
  invalidToolName: (name: string): ReActParseError => ({
    code: 'invalid_tool_name',
    message: `the tool name "${snippet(name)}" is longer than ${MAX_TOOL_NAME_CHARS} characters; use a name from the tool list`,
  }),
  argumentsNotObject: (value: unknown): ReActParseError => ({
    code: 'arguments_not_object',
    message: `the tool arguments must be a JSON object, but they are ${describe(value)}`,
  }),
  emptyFinalAnswer: (): ReActParseError => ({
    code: 'empty_final_answer',
    message: 'the "Final Answer:" is empty',
  }),
};
