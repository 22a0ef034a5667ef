import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { z } from 'zod';
import { a2aAgentOf, agentCardOf, publicBaseUrl } from '../a2a/agent-card.js';
import { writeRpcStream, type RpcResponse } from '../a2a/rpc-stream.js';
import { A2aTaskHandler, type A2aTaskDeps } from '../a2a/task-handler.js';
import type { AgentClient } from '../agents/agent-paths.js';
import { AgentPath } from '../agents/agent-paths.js';
import { defineOperation, STREAMED } from '../openapi/operation.js';
import type { OperationRouter } from '../openapi/operation-router.js';
import { clientGone } from '../turns/client-gone.js';

export interface A2aRoutesOptions extends A2aTaskDeps {
  agents: AgentClient;
  publicUrl?: string | undefined;
}

const JsonRpcRequest = z.unknown().meta({
  id: 'A2aJsonRpcRequest',
  description:
    'A JSON-RPC 2.0 request of A2A 1.0 (`SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, `SubscribeToTask`, `CreateTaskPushNotificationConfig`, `GetTaskPushNotificationConfig`, `ListTaskPushNotificationConfigs`, `DeleteTaskPushNotificationConfig`), or of A2A 0.3 (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`, `tasks/pushNotificationConfig/set|get|list|delete`) when the request has no `A2A-Version` header or `A2A-Version: 0.3`. A request that is not JSON-RPC is answered with a JSON-RPC error.',
  example: {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'What is 2 + 2?' }] } },
  },
});

const JsonRpcResponse = z
  .looseObject({
    jsonrpc: z.string().meta({ example: '2.0' }),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.unknown().optional().meta({ description: '`{code, message, data?}`: the JSON-RPC error.' }),
  })
  .meta({
    id: 'A2aJsonRpcResponse',
    description:
      'The JSON-RPC response: `result` (a task: `{"task": …}` for SendMessage, the task for GetTask and CancelTask, …) or `error` (A2A codes: -32001 task not found, -32002 not cancelable, -32004 unsupported operation, -32005 content type not supported, -32009 version not supported, -32602 invalid params with the platform code first in the message, -32603 internal).',
  });

export const a2aOperations = {
  a2aJsonRpc: defineOperation({
    method: 'POST',
    path: '/v1/agents/{agent}/a2a',
    operationId: 'a2aJsonRpc',
    summary: "A2A: an agent's JSON-RPC endpoint (tasks are durable runs)",
    description:
      "The A2A JSON-RPC endpoint of one agent (docs/protocols.md#a2a): a task is a run of the agent (task id = run id, context id = conversation id); it works, waits for input (an approval or an agent-tool's question: the next message of the task answers it), completes with its answer as an artifact, fails or is canceled. Streaming methods answer `text/event-stream`, one JSON-RPC response per `data:` line; an error before the stream opens is a JSON answer.",
    tags: ['a2a'],
    access: 'tenant',
    role: 'member',
    params: AgentPath,
    body: JsonRpcRequest,
    responses: {
      200: {
        description:
          'A JSON-RPC response, or for SendStreamingMessage and SubscribeToTask the stream of JSON-RPC responses (task, status updates, artifact updates).',
        body: JsonRpcResponse,
        events: JsonRpcResponse,
      },
    },
    errors: { 404: ['AGENT_NOT_FOUND'] },
  }),
};

/** A request speaks A2A 0.3 when it names no version (the protocol's rule) or names 0.3. */
function requestedVersionOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || '0.3';
}

/**
 * A2A over JSON-RPC (docs/protocols.md#a2a): the SDK's transport handlers parse and answer
 * JSON-RPC (1.0, and 0.3 method names through its compat layer), and {@link A2aTaskHandler} maps
 * every method onto the agent's runs. The agent is the path's, the tenant the token's.
 */
export function registerA2aRoutes(router: OperationRouter, options: A2aRoutesOptions): void {
  router.add(a2aOperations.a2aJsonRpc, async ({ params, body, request, reply }) => {
    const agent = await a2aAgentOf(options.agents, request, params.agent);
    const card = agentCardOf(agent, publicBaseUrl(request, options.publicUrl), options.pushConfigs !== undefined);
    const version = requestedVersionOf(request.headers[A2A_VERSION_HEADER.toLowerCase()]);
    const legacy = version === '0.3';
    const context = new ServerCallContext({ requestedVersion: version });
    const handler = new A2aTaskHandler(options, { request, agent, card, signal: clientGone(reply) });
    const id = (body as { id?: unknown } | null)?.id;
    const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
    if (!legacy) {
      try {
        validateVersion(version, card, 'JSONRPC');
      } catch (error) {
        return {
          status: 200,
          body: { jsonrpc: '2.0', id: rpcId, error: JsonRpcTransportHandler.mapToJSONRPCError(error) },
        };
      }
    }
    const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
    const mapError = legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    const answer = (await transport.handle(body as Record<string, unknown>, context)) as
      RpcResponse | AsyncGenerator<RpcResponse, void, undefined>;
    if (!(Symbol.asyncIterator in answer)) return { status: 200, body: answer };
    const streamed = await writeRpcStream(reply, answer, {
      id: rpcId,
      heartbeatMs: options.sseHeartbeatMs,
      mapError,
    });
    return streamed ?? STREAMED;
  });
}
