// A one-method gRPC service defined by hand (JSON on the wire), the way ts-proto's generated
// definitions look to @grpc/grpc-js: no .proto loading needed in the fixtures.
import type { ServiceDefinition } from '@grpc/grpc-js';

export interface LookupRequest {
  readonly key: string;
}
export interface LookupReply {
  readonly sum: number;
  readonly cached: string | null;
}

const json = {
  serialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8')),
};

export const lookupService = {
  lookup: {
    path: '/fixture.Lookup/Lookup',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize as (bytes: Buffer) => LookupRequest,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize as (bytes: Buffer) => LookupReply,
  },
} satisfies ServiceDefinition;
