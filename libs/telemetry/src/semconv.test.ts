// The main entry spells semantic-convention names out (it may depend on @opentelemetry/api only);
// this pins them to the published definitions.
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import { ATTR, METRIC, VALUE } from './semconv.js';

describe('semantic convention names', () => {
  it('match @opentelemetry/semantic-conventions', () => {
    expect(ATTR).toEqual({
      errorType: semconv.ATTR_ERROR_TYPE,
      serverAddress: semconv.ATTR_SERVER_ADDRESS,
      serverPort: semconv.ATTR_SERVER_PORT,
      messagingSystem: semconv.ATTR_MESSAGING_SYSTEM,
      messagingSystemName: semconv.ATTR_MESSAGING_SYSTEM_NAME,
      messagingDestinationName: semconv.ATTR_MESSAGING_DESTINATION_NAME,
      messagingOperationName: semconv.ATTR_MESSAGING_OPERATION_NAME,
      messagingOperationType: semconv.ATTR_MESSAGING_OPERATION_TYPE,
      messagingConsumerGroupName: semconv.ATTR_MESSAGING_CONSUMER_GROUP_NAME,
      messagingMessageBodySize: semconv.ATTR_MESSAGING_MESSAGE_BODY_SIZE,
      messagingBatchMessageCount: semconv.ATTR_MESSAGING_BATCH_MESSAGE_COUNT,
      genAiOperationName: semconv.ATTR_GEN_AI_OPERATION_NAME,
      genAiSystem: semconv.ATTR_GEN_AI_SYSTEM,
      genAiProviderName: semconv.ATTR_GEN_AI_PROVIDER_NAME,
      genAiRequestModel: semconv.ATTR_GEN_AI_REQUEST_MODEL,
      genAiRequestMaxTokens: semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
      genAiRequestTemperature: semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE,
      genAiResponseModel: semconv.ATTR_GEN_AI_RESPONSE_MODEL,
      genAiResponseId: semconv.ATTR_GEN_AI_RESPONSE_ID,
      genAiResponseFinishReasons: semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
      genAiUsageInputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      genAiUsageOutputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      genAiToolName: semconv.ATTR_GEN_AI_TOOL_NAME,
      genAiToolCallId: semconv.ATTR_GEN_AI_TOOL_CALL_ID,
      genAiToolType: semconv.ATTR_GEN_AI_TOOL_TYPE,
      genAiTokenType: semconv.ATTR_GEN_AI_TOKEN_TYPE,
    });
    expect(VALUE).toEqual({
      messagingSystemNats: 'nats',
      messagingOperationTypeSend: semconv.MESSAGING_OPERATION_TYPE_VALUE_SEND,
      messagingOperationTypeProcess: semconv.MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
      genAiOperationChat: semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      genAiOperationExecuteTool: semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      genAiTokenTypeInput: semconv.GEN_AI_TOKEN_TYPE_VALUE_INPUT,
      genAiTokenTypeOutput: semconv.GEN_AI_TOKEN_TYPE_VALUE_OUTPUT,
    });
    expect(METRIC).toEqual({
      genAiClientOperationDuration: semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
      genAiClientTokenUsage: semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
    });
  });
});
