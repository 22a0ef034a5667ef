import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** Lints `code` as if it were the content of an existing file, and returns the rule ids that fired. */
async function violations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

describe('module boundaries (eslint @nx/enforce-module-boundaries)', () => {
  it('forbids an app importing another app', async () => {
    const found = await violations(
      'apps/api/src/main.ts',
      "import { startOrchestratorServer } from '../../orchestrator/src/server.js';\nvoid startOrchestratorServer;\n",
    );
    expect(found.some((v) => v.startsWith('@nx/enforce-module-boundaries'))).toBe(true);
  });

  it('forbids an app importing another app by package name', async () => {
    const found = await violations('apps/api/src/main.ts', "import '@platform/orchestrator';\n");
    expect(found.some((v) => v.startsWith('@nx/enforce-module-boundaries'))).toBe(true);
  });

  it('forbids libs/contracts importing an infrastructure client', async () => {
    const found = await violations(
      'libs/contracts/src/index.ts',
      "import pg from 'pg';\nexport const pool = new pg.Pool();\n",
    );
    expect(found.some((v) => v.startsWith('@nx/enforce-module-boundaries') && v.includes('pg'))).toBe(true);
  });

  it('forbids libs/agent-loop importing an infrastructure client', async () => {
    const found = await violations(
      'libs/agent-loop/src/index.ts',
      "import { Redis } from 'ioredis';\nexport const redis = new Redis();\n",
    );
    expect(found.some((v) => v.startsWith('@nx/enforce-module-boundaries'))).toBe(true);
  });

  it('forbids product code importing the test launchers', async () => {
    const found = await violations(
      'apps/memory/src/main.ts',
      "import { startInfra } from '@platform/testing';\nvoid startInfra;\n",
    );
    expect(found.some((v) => v.startsWith('no-restricted-imports'))).toBe(true);
  });

  it('allows what the architecture allows: an app importing libraries', async () => {
    const found = await violations(
      'apps/memory/src/config.ts',
      "import { env } from '@platform/service-kit';\nexport const port = env.port();\n",
    );
    expect(found).toEqual([]);
  });

  it('flags a floating promise and a value import used only as a type', async () => {
    const found = await violations(
      'apps/memory/src/config.ts',
      "import { ChatMessage } from '@platform/contracts';\nexport type M = ChatMessage;\nasync function f(): Promise<void> {}\nf();\n",
    );
    expect(found.some((v) => v.startsWith('@typescript-eslint/no-floating-promises'))).toBe(true);
    expect(found.some((v) => v.startsWith('@typescript-eslint/consistent-type-imports'))).toBe(true);
  });
});

describe('import circles (import-x/no-cycle, platform/no-type-import-cycle)', () => {
  // truncate-output.ts is imported by handle-call.ts; importing handle-call back closes a circle.
  it('forbids a circle of run-time imports inside a package', async () => {
    const found = await violations(
      'libs/tool-sdk/src/truncate-output.ts',
      "import { handleToolCall } from './handle-call.js';\nexport const probe = handleToolCall;\n",
    );
    expect(found.some((v) => v.startsWith('import-x/no-cycle'))).toBe(true);
    expect(found.some((v) => v.startsWith('platform/no-type-import-cycle'))).toBe(true);
  });

  it('forbids a circle made of type-only imports', async () => {
    const found = await violations(
      'libs/tool-sdk/src/truncate-output.ts',
      "import type { CallEnvironment } from './handle-call.js';\nexport type Probe = CallEnvironment;\n",
    );
    expect(found.some((v) => v.startsWith('platform/no-type-import-cycle'))).toBe(true);
  });
});
