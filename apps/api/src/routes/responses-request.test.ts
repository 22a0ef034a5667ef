// A Responses request's previous_response_id and text.format, recorded with its run and read back.
import { describe, expect, it } from 'vitest';
import { protocolRequestJsonOf, responseRequestOf } from './responses-request.js';

const FORMAT = {
  type: 'json_schema' as const,
  name: 'sum',
  schema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  strict: true,
};

describe('the Responses request recorded with a run', () => {
  it('keeps previous_response_id and text.format, and reads them back as asked', () => {
    const facts = { previousResponseId: 'run_0b7c4c57-5f0c-4d47-9a59-2f3f4d9b8d01', format: FORMAT };
    const json = protocolRequestJsonOf(facts);
    expect(json).toBeDefined();
    expect(responseRequestOf(json)).toEqual(facts);
  });

  it('records nothing for a request that asked neither', () => {
    expect(protocolRequestJsonOf({ previousResponseId: null, format: undefined })).toBeUndefined();
    expect(responseRequestOf(undefined)).toEqual({ previousResponseId: null, format: undefined });
    expect(responseRequestOf('')).toEqual({ previousResponseId: null, format: undefined });
  });

  it("reads another protocol's (or an unreadable) record as asking neither", () => {
    expect(responseRequestOf('{"textFormat":{"type":"yaml"}}')).toEqual({
      previousResponseId: null,
      format: undefined,
    });
    expect(responseRequestOf('{"other":1}')).toEqual({ previousResponseId: null, format: undefined });
  });
});
