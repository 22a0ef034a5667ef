import type { ClaimedRun } from '../journal/run-records.js';
import type { RunnableAgent } from '../profiles.js';

/**
 * Which tools a run may call: its profile's allowlist, narrowed for a child run whose lineage
 * names its tools (a plan subtask that says which tool to use). A scoped tool the profile does not
 * allow stays refused: the scope only ever takes tools away.
 */
export function toolScopeOf(
  profile: Pick<RunnableAgent, 'allowsTool'>,
  run: Pick<ClaimedRun, 'lineage'>,
): (name: string) => boolean {
  const scope = run.lineage?.tools;
  if (!scope) return profile.allowsTool;
  const only = new Set(scope);
  return (name) => only.has(name) && profile.allowsTool(name);
}
