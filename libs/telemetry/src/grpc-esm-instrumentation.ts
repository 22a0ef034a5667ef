// The gRPC instrumentation, made independent of how an ES module imports @grpc/grpc-js.
//
// Under ESM, import-in-the-middle hands the instrumentation the module *namespace*, so its patches
// land on the named exports only. `import grpc from '@grpc/grpc-js'` reads the CommonJS exports
// object instead, whose `makeGenericClientConstructor` stays unpatched; and because grpc-js binds
// `Client.prototype.makeUnaryRequest` when it loads, clients built that way would send no spans
// and no `traceparent`. Applying the same patch to that object as well covers both import styles.
import { types } from 'node:util';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import type { InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';

/** The CommonJS exports behind an import-in-the-middle namespace, if `exports` is one. */
function commonJsExports(exports: unknown): object | undefined {
  if (!types.isProxy(exports)) return undefined;
  const cjs = (exports as { default?: unknown }).default;
  return typeof cjs === 'object' && cjs !== null && cjs !== exports ? cjs : undefined;
}

/** {@link GrpcInstrumentation} that also patches the default-import view of @grpc/grpc-js under ESM. */
export class GrpcEsmInstrumentation extends GrpcInstrumentation {
  override init(): InstrumentationNodeModuleDefinition[] {
    const definitions = super.init();
    for (const definition of definitions) {
      const { patch, unpatch } = definition;
      if (patch) {
        definition.patch = (exports: unknown, version?: string): unknown => {
          const cjs = commonJsExports(exports);
          // Prototype patches are shared by both views; re-wrapping them is idempotent (_wrap unwraps first).
          if (cjs) patch(cjs, version);
          return patch(exports, version);
        };
      }
      if (unpatch) {
        definition.unpatch = (exports: unknown, version?: string): void => {
          const cjs = commonJsExports(exports);
          if (cjs) unpatch(cjs, version);
          unpatch(exports, version);
        };
      }
    }
    return definitions;
  }
}
