import { createHash } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { LoopResult } from '@platform/agent-loop';
import { quotasFor, remoteRunAgentId, type TenantTiers } from '@platform/contracts';
import { isPlatformError, type Logger } from '@platform/service-kit';
import type { TurnAttempt } from '../turn/attempt.js';
import { syntheticResult } from '../turn/turn-steps.js';
import type { RemoteAgentClients } from './remote-agent-card.js';
import type { RemoteAgentStore } from './remote-agent-store.js';
import { RemoteAgentTokenError, type RemoteAgentTokens } from './remote-agent-tokens.js';
import { cancelTask, followTask, isTask, sendTask, statusMark } from './remote-task-follow.js';
import { outcomeOfTask, stateName, textOfMessage, type RemoteOutcome } from './remote-task-state.js';
import type { RemoteTasks } from './remote-tasks.js';

export interface RemoteAgentCallDependencies {
  store: Pick<RemoteAgentStore, 'get'>;
  tasks: RemoteTasks;
  clients: Pick<RemoteAgentClients, 'open'>;
  tokens: Pick<RemoteAgentTokens, 'tokenFor'>;
  tiers: { tiers: TenantTiers; defaultTier: string };
  pollMs: number;
  callTimeoutMs: number;
  logger: Logger;
}

/** Why a call failed, as the child's answer says it (no URL, no token, no address). */
function failureText(err: unknown): string {
  if (err instanceof RemoteAgentTokenError) return err.message;
  if (isPlatformError(err)) return err.message;
  const message = (err as Error)?.message ?? String(err);
  return message.slice(0, 300);
}

/** A message id stable per run: a resumed attempt that sends again sends the same message. */
const messageIdOf = (runId: string): string => `msg-${createHash('sha256').update(runId).digest('hex').slice(0, 32)}`;

/**
 * A child run done by a remote A2A agent (a delegate with `remoteAgent`): the run's task is sent
 * with `message/send` (non-blocking), the task recorded with the run at once, then followed with
 * `tasks/get` until it settles. A resumed run (another replica, after a crash) finds the recorded
 * task and follows it again rather than sending anew. Cancelling the run (its delegation's deadline,
 * the parent cancelled) cancels the remote task with `tasks/cancel`; a hand-over does not.
 */
export class RemoteAgentCall {
  constructor(private readonly deps: RemoteAgentCallDependencies) {}

  async run(attempt: TurnAttempt, name: string): Promise<LoopResult> {
    const { run } = attempt;
    const started = Date.now();
    const { quotas, tier } = quotasFor(this.deps.tiers.tiers, run.tier, this.deps.tiers.defaultTier);
    if (quotas.remoteAgents === 0) return this.failed(run.runId, `remote agents are not available to tier '${tier}'`);
    const agent = await this.deps.store.get(run.tenantId, name);
    if (!agent) return this.failed(run.runId, `the remote agent '${name}' does not exist (any more)`);
    const signal = attempt.control.signal;
    let client: Client | undefined;
    let taskId: string | undefined;
    let before: string | undefined;
    const callOptions = () => ({ signal: AbortSignal.any([signal, AbortSignal.timeout(this.deps.callTimeoutMs)]) });
    try {
      const token = agent.credentialService
        ? await this.deps.tokens.tokenFor(
            run,
            {
              service: agent.credentialService,
              ...(agent.credentialAccount ? { account: agent.credentialAccount } : {}),
            },
            Date.now() + this.deps.callTimeoutMs,
          )
        : undefined;
      ({ client } = await this.deps.clients.open(agent.url, token));
      const known = await this.deps.tasks.ofRun(run.tenantId, run.runId);
      let task: Task;
      if (known) {
        taskId = known.taskId;
        task = await client.getTask({ tenant: '', id: known.taskId, historyLength: 1 }, callOptions());
        this.deps.logger.info({ runId: run.runId, remoteAgent: name }, 'following a remote task sent before');
      } else {
        const waiting = await this.deps.tasks.waitingIn(run.tenantId, run.conversationId, run.runId);
        // The waiting task's status now: the same status seen after the answer is not its reply yet.
        if (waiting)
          before = statusMark(
            await client.getTask({ tenant: '', id: waiting.taskId, historyLength: 0 }, callOptions()),
          );
        const sent = await sendTask(
          client,
          {
            text: run.content,
            messageId: messageIdOf(run.runId),
            ...(waiting ? { continues: { taskId: waiting.taskId, contextId: waiting.contextId } } : {}),
          },
          signal,
          this.deps.callTimeoutMs,
        );
        if (!isTask(sent))
          return this.result(run.runId, name, { kind: 'completed', text: textOfMessage(sent) }, started);
        task = sent;
        taskId = task.id;
        await this.deps.tasks.record(run.tenantId, {
          runId: run.runId,
          conversationId: run.conversationId,
          remoteAgent: name,
          taskId: task.id,
          contextId: task.contextId,
          state: stateName(task.status?.state),
        });
      }
      const settled = await followTask(client, task, {
        pollMs: this.deps.pollMs,
        callTimeoutMs: this.deps.callTimeoutMs,
        signal,
        onState: (state) => this.deps.tasks.setState(run.tenantId, run.runId, state),
        ...(before !== undefined ? { before } : {}),
      });
      await this.deps.tasks.setState(run.tenantId, run.runId, stateName(settled.status?.state));
      return this.result(run.runId, name, outcomeOfTask(settled, name), started);
    } catch (err) {
      if (!signal.aborted) {
        this.deps.logger.warn(
          { runId: run.runId, remoteAgent: name, err: failureText(err) },
          'remote agent call failed',
        );
        return this.failed(run.runId, `the remote agent '${name}' could not be reached: ${failureText(err)}`);
      }
      // Handed over (shutdown, a lost lease): the task goes on, and whoever resumes the run follows it.
      if (attempt.abandoned) return syntheticResult(run.runId, 'cancelled', 'handed over');
      const cancelled = client && taskId ? await cancelTask(client, taskId, this.deps.callTimeoutMs) : false;
      if (taskId) await this.deps.tasks.setState(run.tenantId, run.runId, 'canceled').catch(() => undefined);
      return this.result(
        run.runId,
        name,
        {
          kind: 'cancelled',
          message: `the remote agent's task was cancelled${taskId ? (cancelled ? ' (tasks/cancel sent)' : ' (tasks/cancel was not answered)') : ''}`,
        },
        started,
      );
    }
  }

  private failed(runId: string, message: string): LoopResult {
    return syntheticResult(runId, 'model_error', message, { kind: 'remote_agent', message });
  }

  private result(runId: string, name: string, outcome: RemoteOutcome, started: number): LoopResult {
    const durationMs = Date.now() - started;
    switch (outcome.kind) {
      case 'completed':
        return {
          ...syntheticResult(runId, 'final_answer', outcome.text),
          durationMs,
          messages: [{ role: 'assistant', content: outcome.text }],
        };
      case 'waiting':
        return {
          ...syntheticResult(runId, 'agent_waiting', outcome.prompt),
          durationMs,
          pendingAgents: [
            { callId: runId, agentName: remoteRunAgentId(name), waitingFor: 'input', prompt: outcome.prompt },
          ],
        };
      case 'cancelled':
        return { ...syntheticResult(runId, 'cancelled', outcome.message), durationMs };
      default:
        return { ...this.failed(runId, outcome.message), durationMs };
    }
  }
}
