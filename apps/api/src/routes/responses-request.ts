import { z } from 'zod';
import { ResponseTextFormat } from './responses-format.js';

/**
 * What a Responses request asked that its response reports back, kept with the run as its
 * protocol request (HandleMessageRequest.protocol_request_json): a retrieved response repeats its
 * request's `previous_response_id` and `text.format`.
 */
export interface ResponseRequestFacts {
  previousResponseId: string | null;
  format: ResponseTextFormat | undefined;
}

const Recorded = z.object({
  previousResponseId: z.string().optional(),
  textFormat: ResponseTextFormat.optional(),
});

/** The protocol request of a run created by a Responses request; undefined when it asked neither. */
export function protocolRequestJsonOf(facts: ResponseRequestFacts): string | undefined {
  if (!facts.previousResponseId && !facts.format) return undefined;
  return JSON.stringify({
    ...(facts.previousResponseId ? { previousResponseId: facts.previousResponseId } : {}),
    ...(facts.format ? { textFormat: facts.format } : {}),
  });
}

/** A run's recorded Responses request; a run without one (another protocol's, or older) asked neither. */
export function responseRequestOf(json: string | undefined): ResponseRequestFacts {
  const recorded = json ? Recorded.safeParse(JSON.parse(json)) : undefined;
  return {
    previousResponseId: recorded?.data?.previousResponseId ?? null,
    format: recorded?.data?.textFormat,
  };
}
