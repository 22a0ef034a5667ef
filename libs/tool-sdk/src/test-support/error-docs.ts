import { toolErrorCatalogue } from '@platform/contracts';
import type { DocTable } from '@platform/testing';

type ToolErrorCatalogue = Record<string, { sentBy: string; status: string; handling: string }>;

/** docs/tool-protocol.md's "Error codes" table: each code, who sends it, its status and what the orchestrator does. */
export function toolErrorTable(catalogue: ToolErrorCatalogue = toolErrorCatalogue): DocTable {
  return {
    file: 'docs/tool-protocol.md',
    name: 'tool-protocol-error-codes',
    header: ['Code', 'Sent by', 'Status', 'What the orchestrator does'],
    rows: () =>
      Object.entries(catalogue).map(([code, spec]) => [
        `\`${code}\``,
        spec.sentBy,
        `\`${spec.status}\``,
        spec.handling,
      ]),
  };
}

/** Every table the docs generate from the tool protocol's error catalogue. */
export const errorDocTables: readonly DocTable[] = [toolErrorTable()];
