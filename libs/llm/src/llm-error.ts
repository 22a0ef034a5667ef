import { NamedError } from '@platform/contracts';

/** The root of llm's errors (`StructuredOutputError`); each is named after its class. */
export class LlmError extends NamedError {}
