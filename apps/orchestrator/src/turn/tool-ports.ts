import type { ToolPort } from '@platform/agent-loop';
import type { PoolAgents } from '../agent-tools/pool-agents.js';
import { RunnerToolPort } from '../runner-tool-port.js';
import { toolScopeOf } from '../teams/child-tool-scope.js';
import type { ToolGate } from '../tool-gate/tool-gate.js';
import type { SettledTurn } from './pending-agent-tools.js';
import type { TurnStep } from './turn-steps.js';

/** The tool ports step's output: the turn with the tools its model may call. */
export interface EquippedTurn extends SettledTurn {
  tools: ToolPort;
}

/** Wraps the turn's tool port with more tools (the teams' delegations and committees). */
export interface ToolPortDecorator {
  decorate(port: ToolPort, turn: SettledTurn): ToolPort;
}

export interface ToolPortsStepOptions {
  /** The tool gate every tool call of this process passes (allowlist, approval, breakers, grants, dedupe). */
  gate: ToolGate;
  /** Agent-tool calls go to the agent pool. */
  agents: PoolAgents;
  /** Applied in order around the runner port. */
  decorators: readonly ToolPortDecorator[];
}

/**
 * The tool ports step: the model's calls go through the tool gate as caller `model` (a plan
 * subtask's child as `subtask`, held to its lineage's tools), decorated with what else the
 * profile may call.
 */
export class ToolPortsStep implements TurnStep<SettledTurn, EquippedTurn> {
  readonly name = 'tool-ports';

  constructor(private readonly options: ToolPortsStepOptions) {}

  async run(turn: SettledTurn): Promise<EquippedTurn> {
    const { run } = turn.attempt;
    const runnerTools: ToolPort = new RunnerToolPort(this.options.gate, {
      tenantId: run.tenantId,
      conversationId: run.conversationId,
      allowsTool: toolScopeOf(turn.profile, run),
      ...(run.lineage?.tools ? { subtaskScope: run.lineage.tools } : {}),
      agents: this.options.agents,
      ...(run.source ? { source: run.source } : {}),
    });
    const tools = this.options.decorators.reduce((port, decorator) => decorator.decorate(port, turn), runnerTools);
    return { ...turn, tools };
  }
}
