import { InstrumentationBase } from '@opentelemetry/instrumentation';
import { afterAll, describe, expect, it } from 'vitest';
import { HOOKED_MODULES } from './hooked-modules.js';
import { createInstrumentations } from './instrumentations.js';

const instrumentations = createInstrumentations();
afterAll(() => instrumentations.forEach((i) => i.disable()));

describe('createInstrumentations', () => {
  it('covers http, grpc, pg, ioredis and fetch', () => {
    expect(instrumentations.map((i) => i.instrumentationName)).toEqual([
      '@opentelemetry/instrumentation-http',
      '@opentelemetry/instrumentation-grpc',
      '@opentelemetry/instrumentation-pg',
      '@opentelemetry/instrumentation-ioredis',
      '@opentelemetry/instrumentation-undici',
    ]);
  });

  it('only patches modules the ESM loader hook is told to intercept', () => {
    const patched = instrumentations.flatMap((i) => (i instanceof InstrumentationBase ? i.getModuleDefinitions().map((d) => d.name) : []));
    expect(patched.length).toBeGreaterThan(0);
    expect(HOOKED_MODULES).toEqual(expect.arrayContaining(patched));
  });
});
