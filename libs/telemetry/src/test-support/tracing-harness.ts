// In-process tracing for unit tests: a real SDK tracer provider exporting to memory, the W3C
// propagators, and an AsyncLocalStorage context manager so the active span survives `await`.
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (...args: unknown[]): unknown =>
      this.with(ctx, () => (target as (...a: unknown[]) => unknown)(...args));
    return run as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

export interface TestTracing {
  readonly provider: TracerProvider;
  /** Spans ended so far. */
  spans(): ReadableSpan[];
  /** The one ended span called `name`; fails the test if there is not exactly one. */
  span(name: string): ReadableSpan;
  reset(): void;
  uninstall(): Promise<void>;
}

/** Registers the globals; call in beforeAll and `uninstall()` in afterAll. */
export function installTestTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  return {
    provider,
    spans: () => exporter.getFinishedSpans(),
    span(name) {
      const matches = exporter.getFinishedSpans().filter((s) => s.name === name);
      if (matches.length !== 1) throw new Error(`expected one span '${name}', found ${matches.length}`);
      return matches[0]!;
    },
    reset: () => exporter.reset(),
    async uninstall() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
