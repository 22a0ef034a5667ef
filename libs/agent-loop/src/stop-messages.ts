import type { PendingAgent } from './tool-port.js';

/** The user-facing answer when the loop ends without a model answer. */
export const stopMessages = {
  cancelled: 'The request was cancelled before it finished.',
  deadline: 'I could not finish this request in the time available. Please try again, perhaps with a narrower request.',
  contextOverflow:
    'This conversation has grown too long for the model, even after shortening it. Please start a new conversation.',
  modelError: (message: string): string => `The model could not be reached (${message}). Please try again later.`,
  noFinalAnswer:
    'I reached the step limit for this request before finishing. Here is where things stand: the tool results above are what I gathered.',
  invalidOutput: 'The answer did not match the format this request asked for, even after a retry.',
  agentWaiting: (pending: readonly PendingAgent[]): string => pending.map((p) => p.prompt).join('\n\n'),
};
