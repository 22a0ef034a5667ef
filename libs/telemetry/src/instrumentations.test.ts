import { InstrumentationBase } from '@opentelemetry/instrumentation';
import { afterAll, describe, expect, it } from 'vitest';
import { INSTRUMENTATION_NAMES, hookedModules } from './hooked-modules.js';
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

  it('creates only the instrumentations it is given, in the usual order', () => {
    const some = createInstrumentations(['undici', 'http']);
    try {
      expect(some.map((i) => i.instrumentationName)).toEqual([
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-undici',
      ]);
    } finally {
      some.forEach((i) => i.disable());
    }
    expect(createInstrumentations([])).toEqual([]);
  });

  it('only patches modules the ESM loader hook is told to intercept for that instrumentation', () => {
    INSTRUMENTATION_NAMES.forEach((name, index) => {
      const instrumentation = instrumentations[index]!;
      const patched =
        instrumentation instanceof InstrumentationBase ? instrumentation.getModuleDefinitions().map((d) => d.name) : [];
      expect(hookedModules([name]), name).toEqual(expect.arrayContaining(patched));
    });
    expect(hookedModules(INSTRUMENTATION_NAMES)).toEqual([
      'http',
      'https',
      '@grpc/grpc-js',
      'pg',
      'pg-pool',
      'ioredis',
    ]);
  });
});
