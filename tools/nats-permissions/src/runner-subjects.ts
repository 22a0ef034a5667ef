import { TOOL_BATCH_SUBJECT_SUFFIX, TOOL_QUEUE_GROUP, TOOL_SUBJECT_PREFIX } from '@platform/contracts';
import type { Principal, RunnerDeclaration } from './model.js';

const NAME = /^[A-Za-z0-9_-]+$/;

/** Discovery requests a runner named `name` must hear (`$SRV.PING`, `$SRV.INFO.<name>`, `$SRV.STATS.<name>.<id>`, ...). */
export function discoverySubscriptions(name: string): string[] {
  return ['$SRV.PING', '$SRV.INFO', '$SRV.STATS', `$SRV.*.${name}`, `$SRV.*.${name}.*`];
}

/** The endpoint subjects of the tools a runner serves and their batch subjects, each in the runners' queue group. */
export function toolSubscriptions(tools: readonly string[]): string[] {
  return tools.flatMap((tool) => [
    `${TOOL_SUBJECT_PREFIX}.${tool} ${TOOL_QUEUE_GROUP}`,
    `${TOOL_SUBJECT_PREFIX}.${tool}.${TOOL_BATCH_SUBJECT_SUFFIX} ${TOOL_QUEUE_GROUP}`,
  ]);
}

/**
 * A runner's user: it hears its own tools' subjects and discovery, answers what it hears, and
 * may publish nothing else, subscribe to nothing else (no run events, no other runner's calls, no
 * JetStream API, no inboxes).
 */
export function runnerPrincipal(runner: RunnerDeclaration): Principal {
  const user = runner.user ?? runner.name;
  for (const [what, value] of [
    ['runner name', runner.name],
    ['user', user],
    ...runner.tools.map((t) => ['tool name', t] as const),
  ] as const) {
    if (!NAME.test(value))
      throw new Error(
        `runner '${runner.name}': ${what} '${value}' must be letters, digits, "_" or "-" (one NATS subject token)`,
      );
  }
  if (runner.tools.length === 0) throw new Error(`runner '${runner.name}' declares no tools`);
  return {
    name: user,
    kind: 'runner',
    description: runner.description ?? `tool runner '${runner.name}': ${runner.tools.join(', ')}`,
    publish: [],
    subscribe: [...toolSubscriptions(runner.tools), ...discoverySubscriptions(runner.name)],
    allowResponses: true,
  };
}
