import { NamedError } from '@platform/contracts';

/** The root of agent-loop's errors (`ModelError`, `LoopConfigError`); each is named after its class. */
export class AgentLoopError extends NamedError {}
