import { AgentSpec, RunOverrides } from '@platform/contracts';
import { isPlatformError } from '@platform/service-kit';
import { z } from 'zod';
import { AgentRef } from '../agents/agent-paths.js';
import { ApiErrorCodes } from '../error-codes.js';
import { HttpError } from '../http-errors.js';
import type { TurnRequest, TurnRunner } from './turn-runner.js';

/** The fields of a message that choose the agent it runs under and shape the run (docs/agents.md). */
export const AgentChoiceFields = {
  agent: AgentRef.optional().meta({
    description:
      "The agent to talk to: an id or a name (a tenant agent wins over a built-in one of that name); omitted: the conversation's pin, else the default built-in agent.",
  }),
  /** The agent profile to talk to; omitted = the default profile. */
  profile: z.string().min(1).max(64).optional().meta({
    description: 'The older name of `agent` (an operator profile is a built-in agent); both given must agree.',
  }),
  agentVersion: z.number().int().min(1).max(2_147_483_647).optional().meta({
    description:
      'Run under this version of the agent (a draft included: try it before publishing); omitted: the pin, else the active one.',
  }),
  overrides: RunOverrides.optional().meta({
    description:
      'What this run changes of its agent, within what the agent allows (400 OVERRIDE_NOT_ALLOWED); recorded on the run.',
  }),
  outputSchema: AgentSpec.shape.outputSchema.meta({
    description:
      "A JSON Schema the run's answer must match (instead of the agent's); the result carries it as `output`.",
  }),
};

interface AgentChoice {
  agent?: string | undefined;
  profile?: string | undefined;
  agentVersion?: number | undefined;
  overrides?: RunOverrides | undefined;
  outputSchema?: Record<string, unknown> | undefined;
}

/** The HandleMessage fields of a message's agent choice; `agent` and `profile` naming two agents is a 400. */
export function agentTurnFields(
  choice: AgentChoice,
): Pick<TurnRequest, 'profile' | 'agentVersion' | 'overridesJson' | 'outputSchemaJson'> {
  if (choice.agent !== undefined && choice.profile !== undefined && choice.agent !== choice.profile)
    throw new HttpError(
      400,
      ApiErrorCodes.INVALID_BODY,
      `agent: '${choice.agent}' and profile: '${choice.profile}' name two agents; send agent only (profile is its older name)`,
      { field: 'agent' },
    );
  // Only what the message sets: the contract's fields are optional, unset meaning "the default".
  return {
    profile: choice.agent ?? choice.profile ?? '',
    ...(choice.agentVersion !== undefined ? { agentVersion: choice.agentVersion } : {}),
    ...(choice.overrides ? { overridesJson: JSON.stringify(choice.overrides) } : {}),
    ...(choice.outputSchema ? { outputSchemaJson: JSON.stringify(choice.outputSchema) } : {}),
  };
}

/**
 * The runner a message's turn goes through: the orchestrator knows only `profile` (HandleMessage
 * has no other name field), so its PROFILE_NOT_FOUND for a message that named the agent with
 * `agent` is answered as AGENT_NOT_FOUND, the code of the newer field; `profile` keeps its own.
 */
export function runnerFor(turns: Pick<TurnRunner, 'run'>, choice: AgentChoice): Pick<TurnRunner, 'run'> {
  if (choice.agent === undefined) return turns;
  return {
    run: async (...args) => {
      try {
        return await turns.run(...args);
      } catch (error) {
        if (isPlatformError(error) && error.code === ApiErrorCodes.PROFILE_NOT_FOUND)
          throw new HttpError(404, ApiErrorCodes.AGENT_NOT_FOUND, `agent: no agent '${choice.agent}' for this tenant`, {
            field: 'agent',
          });
        throw error;
      }
    },
  };
}
