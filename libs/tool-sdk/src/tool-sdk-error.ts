import { NamedError } from '@platform/contracts';

/** The root of tool-sdk's errors (`ToolFailure`, `CredentialAccessError`); each is named after its class. */
export class ToolSdkError extends NamedError {}
