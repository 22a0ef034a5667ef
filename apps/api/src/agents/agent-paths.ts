import { AgentId, AgentName } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';
import { z } from 'zod';

/** The orchestrator's AgentService, as the agent routes call it. */
export type AgentClient = PromiseClient<agentsV1.AgentServiceClient>;

/** `{agent}` in a path: an agent id (`agt_…`, `builtin:…`) or a name. */
export const AgentRef = z
  .union([AgentId, AgentName])
  .meta({ description: 'An agent id (`agt_<uuid>`, `builtin:<name>`) or its name.', example: 'support-bot' });

export const AgentPath = z.object({ agent: AgentRef });

/** `{version}` in a path: 1, 2, … */
export const VersionNumber = z.coerce.number().int().min(1).max(2_147_483_647);

export const AgentVersionPath = z.object({ agent: AgentRef, version: VersionNumber });

/** `?draft=true`: write the version without making it active. */
export const DraftQuery = z
  .object({
    draft: z.enum(['true', 'false']).default('false').meta({
      description: "`true` keeps the new version a draft: try it with a message's `agentVersion`, then publish it.",
    }),
  })
  .strict();
