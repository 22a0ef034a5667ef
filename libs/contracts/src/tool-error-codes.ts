/**
 * Every code of the tool protocol's error responses (docs/tool-protocol.md "Error codes", generated
 * from this list): who sends it, the response `status` it comes with, and what the orchestrator
 * does with it.
 */
export const toolErrorCatalogue = {
  INVALID_REQUEST: {
    sentBy: 'runner',
    status: 'invalid',
    handling:
      'Headers or body broke this protocol (a platform or version bug). Becomes an `invalid` tool result for the model; not retried.',
  },
  INVALID_ARGUMENTS: {
    sentBy: "runner (also the orchestrator, when the model's arguments are not a JSON object)",
    status: 'invalid',
    handling:
      'The model gets the message and the issues (`message (path: problem; …)`) and usually corrects the call on its next step. Not retried by the platform.',
  },
  HANDLER_FAILED: {
    sentBy: 'runner',
    status: 'failed',
    handling: 'The message goes to the model as an error result; not retried.',
  },
  DEADLINE_EXCEEDED: {
    sentBy: 'runner, or the client when no answer came before the deadline',
    status: 'timeout',
    handling: 'A `timeout` tool result; not retried (the deadline is used up).',
  },
  RUNNER_BUSY: {
    sentBy: 'runner',
    status: 'busy',
    handling:
      'Retried on the queue group (see [below](#busy-and-retries)); after the retries the result is `failed` with this code.',
  },
  UNKNOWN_TOOL: {
    sentBy: 'runner (a request for a tool it does not serve), or the orchestrator (the model named no known tool)',
    status: 'invalid',
    handling: 'The model is told the available tools.',
  },
  RUNNER_UNAVAILABLE: {
    sentBy: 'client only: NATS answered "no responders", or the catalog has no online runner',
    status: 'failed',
    handling:
      'A `failed` result ("no runner serves \'x\' right now"); retried briefly only as [the policy](#busy-and-retries) allows.',
  },
  TRANSPORT_FAILED: {
    sentBy: 'client only: the request could not be sent/answered, or the answer broke this protocol',
    status: 'failed',
    handling: 'A `failed` result; retried only as the policy allows, and never when a (broken) answer arrived.',
  },
} as const satisfies Record<
  string,
  { sentBy: string; status: 'invalid' | 'failed' | 'timeout' | 'busy'; handling: string }
>;

/** A code of the tool protocol's error responses. */
type ToolErrorCodeName = keyof typeof toolErrorCatalogue;

/** The codes in the catalogue's order. */
export const toolErrorCodes = Object.keys(toolErrorCatalogue) as [ToolErrorCodeName, ...ToolErrorCodeName[]];
