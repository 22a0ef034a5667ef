export { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { toOpenAIMessages, toOpenAITools, fromOpenAIMessage } from './openai-messages.js';
