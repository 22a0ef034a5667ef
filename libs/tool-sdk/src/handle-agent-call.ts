import { AgentCallRequest, type AgentStepOutput, type ToolCallResponse } from '@platform/contracts';
import { runAgentStep } from './agent-step.js';
import { outcome } from './call-outcome.js';
import type { AgentToolDefinition } from './define-agent-tool.js';
import { openCall, runHandler, type CallEnvironment, type RunnableTool } from './handle-call.js';
import { truncateOutput } from './truncate-output.js';
import { grantCallId } from './tool-credentials.js';

/**
 * Serves one agent step: the same headers, deadline and failure rules as a tool call
 * (`handleToolCall`), with an `AgentCallRequest` body and an `AgentStepOutput` as the output of a
 * `success` response. Field problems are part of the output (`waiting_for_input`), never
 * `invalid`; only a malformed step request is `invalid`/`INVALID_REQUEST`. Never throws.
 */
export async function handleAgentCall(
  agent: AgentToolDefinition,
  getHeader: (key: string) => string | undefined,
  body: string,
  env: CallEnvironment,
): Promise<ToolCallResponse> {
  const call = openCall(getHeader, body, AgentCallRequest, `a step of agent '${agent.name}'`, env);
  if ('status' in call) return call;
  const { meta, request, started, elapsed } = call;

  const deadlineAt = Math.min(meta.deadlineAt, started + agent.timeoutMs);
  if (deadlineAt - started <= 0) return outcome.timeout('the call arrived after its deadline', elapsed());

  // Only the result of `run` may be cut: the rest of the step output is protocol, and must parse.
  let truncated = false;
  const step: RunnableTool = {
    name: agent.name,
    output: undefined,
    credentials: agent.credentials,
    handler: async (input, context) => {
      const output = await runAgentStep(agent, input as AgentCallRequest, context);
      if (output.state !== 'completed') return output;
      const bounded = truncateOutput(output.result, env.maxResultBytes);
      if (!bounded.truncated) return output;
      truncated = true;
      context.logger.info({ maxResultBytes: env.maxResultBytes }, 'agent result truncated at the source');
      return { ...output, result: bounded.output } satisfies AgentStepOutput;
    },
  };
  const run = async (): Promise<ToolCallResponse> => {
    const credentialCallId = grantCallId(env.credentialGrant);
    const response = await runHandler(
      step,
      request,
      meta,
      deadlineAt,
      { ...env, maxResultBytes: Number.POSITIVE_INFINITY, ...(credentialCallId ? { credentialCallId } : {}) },
      elapsed,
    );
    return truncated && response.status === 'success' ? { ...response, truncated: true } : response;
  };
  // Each step is its own call: the key covers the step, so a repeat of one step never answers another.
  const keyed = { arguments: request.arguments, agent: request.agent ?? { phase: 'start' } };
  return env.once ? env.once({ tool: agent.name, meta, arguments: keyed, deadlineAt }, run) : run();
}
