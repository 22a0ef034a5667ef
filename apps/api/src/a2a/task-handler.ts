import { randomUUID } from 'node:crypto';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { ConversationId } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { PlatformError, type PromiseClient } from '@platform/service-kit';
import type { FastifyRequest } from 'fastify';
import type { RunEvents } from '../events/run-event-reader.js';
import { principalOf } from '../principal.js';
import { facadeTurn } from '../turns/facade-turn.js';
import { newRunId, type TurnRunner } from '../turns/turn-runner.js';
import { a2aErrorOf } from './a2a-errors.js';
import type { A2aAgent } from './agent-card.js';
import { contentOf } from './message-input.js';
import type { A2aPushConfigs, PushCaller } from './push-configs.js';
import { outcomeOfAnswer, outcomeOfRun } from './run-outcomes.js';
import { answerRunId, isTaskId, MAX_TASK_ANSWERS, taskOfRun } from './task-ids.js';
import { isTerminal, taskOf, taskStateOf, type TaskRef } from './task-mapping.js';
import { TaskEventRenderer, taskResponse } from './task-events.js';
import { TaskRun } from './task-stream.js';

export interface A2aTaskDeps {
  turns: Pick<TurnRunner, 'run'>;
  events: RunEvents;
  orchestrator: PromiseClient<orchestratorV1.OrchestratorServiceClient>;
  /** Push notification configs (absent: refused as not supported). */
  pushConfigs?: A2aPushConfigs | undefined;
  maxMessageChars: number;
  turnWaitMs: number;
  sseHeartbeatMs: number;
}

/** One call to an agent's A2A endpoint: who calls (the token), which agent, and when the caller goes away. */
export interface A2aCall {
  request: FastifyRequest;
  agent: A2aAgent;
  card: AgentCard;
  signal: AbortSignal;
}

/** A task and its latest run (task-ids.ts: the task's first run, or its latest answer). */
interface TaskChain {
  ref: TaskRef;
  latest: orchestratorV1.GetRunResponse;
  answers: number;
}

/** Where a message goes: a new task, or the next answer of a task that waits for input. */
interface SendPlan {
  ref: TaskRef;
  runId: string;
  content: string;
}

/**
 * The A2A methods of one agent, mapped onto the platform's runs (docs/protocols.md#a2a). A task is
 * a durable run (answers to a waiting task are runs of the same chain, task-ids.ts) and every
 * method reads or starts runs through the orchestrator, so nothing here outlives the request and
 * a task survives any restart its runs survive. Tasks of another tenant, of another protocol or of
 * another agent are not found, exactly like missing ones.
 */
export class A2aTaskHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: A2aTaskDeps,
    private readonly call: A2aCall,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.call.card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError('the agent card is the same for every caller'));
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    try {
      const plan = await this.plan(params.message);
      await this.registerPushConfig(params, plan.ref);
      const run = this.startRun(plan, false);
      if (params.configuration?.returnImmediately) {
        // Answer once the run is recorded and started; it goes on (and ends) without the caller.
        const first = await run.started();
        run.close();
        if (first.kind === 'finished') return taskOf(plan.ref, outcomeOfAnswer(first.answer));
        return taskOf(plan.ref, { runId: plan.runId, status: 'running', at: new Date().toISOString() });
      }
      run.close();
      return await this.answerOrState(plan.ref, run.turn);
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  /**
   * A blocking send's answer: the task as its run ended, or, when the api's wait (TURN_WAIT_MS)
   * ends first, the task as it stands then (working, usually): the run goes on, and the caller
   * follows it with GetTask, SubscribeToTask or a push config, as after `returnImmediately`.
   */
  private async answerOrState(ref: TaskRef, turn: Promise<orchestratorV1.HandleMessageResponse>): Promise<Task> {
    try {
      return taskOf(ref, outcomeOfAnswer(await turn));
    } catch (error) {
      if (!(error instanceof PlatformError && error.kind === 'deadline_exceeded') || this.call.signal.aborted)
        throw error;
      const chain = await this.chain(ref.taskId);
      return taskOf(chain.ref, outcomeOfRun(chain.latest));
    }
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    let plan: SendPlan;
    try {
      plan = await this.plan(params.message);
      await this.registerPushConfig(params, plan.ref);
    } catch (error) {
      throw a2aErrorOf(error);
    }
    yield* this.startRun(plan, true).stream(this.call.agent.structured);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    try {
      const chain = await this.chain(params.id);
      return taskOf(chain.ref, outcomeOfRun(chain.latest));
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    try {
      const chain = await this.chain(params.id);
      const state = taskStateOf(chain.latest.status);
      if (state === TaskState.TASK_STATE_INPUT_REQUIRED)
        throw new TaskNotCancelableError(
          'the task waits for input and runs nothing: answer it (an approval is declined by answering "no")',
        );
      if (isTerminal(state)) throw new TaskNotCancelableError(`the task already ended (${chain.latest.status})`);
      const { tenantId } = principalOf(this.call.request);
      const cancelled = await this.deps.orchestrator.cancelRun({ tenantId, runId: chain.latest.runId });
      if (!cancelled.accepted) throw new TaskNotCancelableError(`the task already ended (${cancelled.status})`);
      // An accepted cancel ends the run cancelled (a running one at its next step).
      const run = await this.deps.orchestrator.getRun({ tenantId, runId: chain.latest.runId });
      return taskOf(chain.ref, { ...outcomeOfRun(run), status: 'cancelled', stopReason: 'cancelled' });
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  /**
   * The stream of a task from now on: its latest run's events (those it already had, then the
   * rest), ending at the status that run ends with; a task that already ended is sent alone.
   */
  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse> {
    let chain: TaskChain;
    try {
      chain = await this.chain(params.id);
    } catch (error) {
      throw a2aErrorOf(error);
    }
    const outcome = outcomeOfRun(chain.latest);
    yield taskResponse(taskOf(chain.ref, outcome));
    if (isTerminal(taskStateOf(outcome.status)) || outcome.status === 'waiting') return;
    const stop = new AbortController();
    const onGone = (): void => stop.abort();
    this.call.signal.addEventListener('abort', onGone, { once: true });
    const renderer = new TaskEventRenderer(chain.ref, chain.latest.runId, this.call.agent.structured);
    try {
      for await (const event of this.deps.events.read(chain.latest.runId, 0, stop.signal)) {
        // The task was sent whole above: its events until the end add the rest.
        yield* renderer.responses(event);
        if (event.type === 'execution_end') return;
      }
    } catch (error) {
      throw a2aErrorOf(error);
    } finally {
      this.call.signal.removeEventListener('abort', onGone);
      stop.abort();
    }
  }

  listTasks(): Promise<ListTasksResponse> {
    return Promise.reject(
      new UnsupportedOperationError("ListTasks is not served: list the agent's runs with GET /v1/runs?protocol=a2a"),
    );
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    try {
      const chain = await this.chain(params.taskId);
      return await this.pushConfigs().create(this.pushCaller(), chain.ref.taskId, params);
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    try {
      const chain = await this.chain(params.taskId);
      return await this.pushConfigs().get(principalOf(this.call.request).tenantId, chain.ref.taskId, params.id);
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    try {
      const chain = await this.chain(params.taskId);
      const configs = await this.pushConfigs().list(principalOf(this.call.request).tenantId, chain.ref.taskId);
      return { configs, nextPageToken: '' };
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    try {
      const chain = await this.chain(params.taskId);
      await this.pushConfigs().delete(principalOf(this.call.request).tenantId, chain.ref.taskId, params.id);
    } catch (error) {
      throw a2aErrorOf(error);
    }
  }

  private pushConfigs(): A2aPushConfigs {
    if (!this.deps.pushConfigs) throw new PushNotificationNotSupportedError();
    return this.deps.pushConfigs;
  }

  /** A push config sent with the message (`configuration.taskPushNotificationConfig`), stored before the run starts. */
  private async registerPushConfig(params: SendMessageRequest, ref: TaskRef): Promise<void> {
    const config = params.configuration?.taskPushNotificationConfig;
    if (!config) return;
    await this.pushConfigs().create(this.pushCaller(), ref.taskId, config);
  }

  private pushCaller(): PushCaller {
    const principal = principalOf(this.call.request);
    return { tenantId: principal.tenantId, tier: principal.tier ?? '' };
  }

  private startRun(plan: SendPlan, stream: boolean): TaskRun {
    const turn = facadeTurn(this.call.request, {
      protocol: 'a2a',
      conversationId: plan.ref.contextId,
      content: plan.content,
      model: this.call.agent.ref,
      stream,
      maxMessageChars: this.deps.maxMessageChars,
    });
    return new TaskRun({
      turns: this.deps.turns,
      events: this.deps.events,
      request: turn,
      runId: plan.runId,
      ref: plan.ref,
      deadlineAt: Date.now() + this.deps.turnWaitMs,
      endGraceMs: this.deps.sseHeartbeatMs,
      signal: this.call.signal,
    });
  }

  /**
   * Where a message goes. With a task id: the next answer of that task, which must wait for input
   * (a working task takes none yet, an ended one none any more). Without: a message in a context
   * whose latest task waits for input answers that task (the platform hands a conversation's next
   * message to what waits in it); else it starts a new task, in its context or a new one.
   */
  private async plan(message: Message | undefined): Promise<SendPlan> {
    const content = contentOf(message);
    if (message!.taskId) {
      const chain = await this.chain(message!.taskId);
      if (message!.contextId && message!.contextId !== chain.ref.contextId)
        throw new RequestMalformedError('message.contextId: the task belongs to another context');
      return { ...this.answerOf(chain), content };
    }
    const contextId = message!.contextId || `a2a-${randomUUID()}`;
    if (!ConversationId.safeParse(contextId).success)
      throw new RequestMalformedError(
        'message.contextId: must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
      );
    if (message!.contextId) {
      const waiting = await this.waitingTaskOf(contextId);
      if (waiting) return { ...this.answerOf(waiting), content };
    }
    const runId = newRunId();
    return { ref: { taskId: runId, contextId }, runId, content };
  }

  private answerOf(chain: TaskChain): Omit<SendPlan, 'content'> {
    const state = taskStateOf(chain.latest.status);
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED)
      throw new UnsupportedOperationError(
        isTerminal(state)
          ? `the task already ended (${chain.latest.status}): send a message without taskId to start another`
          : 'the task is working: send the next message once it needs input (input-required)',
      );
    if (chain.answers >= MAX_TASK_ANSWERS)
      throw new UnsupportedOperationError(`a task takes at most ${MAX_TASK_ANSWERS} answers: start another task`);
    return { ref: chain.ref, runId: answerRunId(chain.ref.taskId, chain.answers + 1) };
  }

  /** The task of the context's latest A2A run, when that run waits for input. */
  private async waitingTaskOf(contextId: string): Promise<TaskChain | undefined> {
    const { tenantId } = principalOf(this.call.request);
    const { runs } = await this.deps.orchestrator.listRuns({
      tenantId,
      conversationId: contextId,
      statuses: [],
      stopReason: '',
      toolName: '',
      source: '',
      parentRunId: '',
      createdAfter: undefined,
      createdBefore: undefined,
      pageSize: 1,
      pageToken: '',
      protocol: 'a2a',
    });
    const latest = runs[0];
    const task = latest?.status === 'waiting' ? taskOfRun(latest.runId) : undefined;
    if (!task) return undefined;
    const chain = await this.chain(task.taskId).catch(() => undefined);
    return chain && taskStateOf(chain.latest.status) === TaskState.TASK_STATE_INPUT_REQUIRED ? chain : undefined;
  }

  /** The task and its latest run; not found unless its first run is this tenant's, by A2A, to this agent. */
  private async chain(taskId: string): Promise<TaskChain> {
    if (!isTaskId(taskId)) throw new TaskNotFoundError('no such task');
    const { tenantId } = principalOf(this.call.request);
    const head = await this.deps.orchestrator.getRun({ tenantId, runId: taskId });
    if (head.protocol !== 'a2a' || !this.isAgentRun(head)) throw new TaskNotFoundError('no such task');
    let latest = head;
    let answers = 0;
    for (let n = 1; n <= MAX_TASK_ANSWERS; n++) {
      const next = await this.deps.orchestrator
        .getRun({ tenantId, runId: answerRunId(taskId, n) })
        .catch((error: unknown) => {
          if (a2aErrorOf(error) instanceof TaskNotFoundError) return undefined;
          throw error;
        });
      if (!next) break;
      latest = next;
      answers = n;
    }
    return { ref: { taskId, contextId: head.conversationId }, latest, answers };
  }

  private isAgentRun(run: orchestratorV1.GetRunResponse): boolean {
    const { agent } = this.call;
    return run.agentId ? run.agentId === agent.agentId : run.profile === agent.name;
  }
}
