export { OpenAIChatModel } from './openai-chat-model.js';
export { TextProtocolModel } from './text-protocol/text-protocol-model.js';
export { OpenAIStructuredOutput, StructuredOutputError } from './openai-structured-output.js';
export { OpenAIEmbeddings } from './openai-embeddings.js';
