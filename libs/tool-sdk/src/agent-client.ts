import { AgentStepOutput, type ToolCallResponse } from '@platform/contracts';

/**
 * The step output of an agent-tool's `success` response, or `undefined` when the response is not a
 * success or its output is not a valid `AgentStepOutput` (a protocol error of the runner). Send
 * steps with `ToolClient.call({ ..., agent: step })`, each step with its own call id.
 */
export function readAgentStepOutput(response: ToolCallResponse): AgentStepOutput | undefined {
  if (response.status !== 'success') return undefined;
  const parsed = AgentStepOutput.safeParse(response.output);
  return parsed.success ? parsed.data : undefined;
}
