export { ZERO_USAGE, addUsage, type ToolSchema, type TokenUsage, type ModelRequest, type ModelResponse, type ModelPort, type FinishReason } from './model-port.js';
