export { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { createPooledFetch, type FetchFunction } from './pooled-fetch.js';
export { toOpenAIMessages, toOpenAITools, fromOpenAIMessage } from './openai-messages.js';
export { classifyOpenAIError, type OpenAIErrorContext } from './openai-errors.js';
export { parseRetryAfterMs, type HeaderLookup } from './retry-after.js';
export { ChatStreamAssembler, type AssembledCompletion } from './openai-stream-assembler.js';
export { readChatStream, type ChatChunkStream, type ReadChatStreamOptions } from './openai-stream-reader.js';
export {
  TextProtocolModel,
  protocolFeedbackFor,
  type TextProtocolModelOptions,
  type TextProtocolResponse,
} from './text-protocol/text-protocol-model.js';
export { parseReActReply } from './text-protocol/react-parser.js';
export type { ReActReply, ReActParseError, ReActParseErrorCode } from './text-protocol/react-reply.js';
export { parseLenientJson, type JsonValue, type LenientJsonResult } from './text-protocol/lenient-json.js';
export {
  renderTextView,
  rawReplyOf,
  TEXT_PROTOCOL_FIELD,
  type TextProtocolFields,
} from './text-protocol/render-history.js';
export { renderToolProtocol, renderAnswerOnlyProtocol } from './text-protocol/render-prompt.js';
export {
  OpenAIStructuredOutput,
  StructuredOutputError,
  parseStructured,
  type OpenAIStructuredOutputOptions,
  type StructuredRequest,
} from './openai-structured-output.js';
export { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from './openai-embeddings.js';
