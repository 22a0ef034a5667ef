import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ChatMessage } from './chat-message.js';
import {
  ToolCallHeader,
  ToolCallMeta,
  ToolCallRequest,
  ToolCallResponse,
  ToolEndpointMetadata,
  parseToolDescriptor,
  toolEndpointMetadata,
} from './tool-protocol.js';

const fixturesDir = path.join(import.meta.dirname, 'fixtures');

/** Every fixture file is parsed by the schema its name starts with; an unmapped fixture fails the test. */
const schemaByPrefix: Record<string, (json: unknown) => unknown> = {
  'tool-call-meta': (json) => {
    const headers = json as Record<string, string>;
    return ToolCallMeta.parse({
      callId: headers[ToolCallHeader.callId],
      tenantId: headers[ToolCallHeader.tenant],
      conversationId: headers[ToolCallHeader.conversation],
      runId: headers[ToolCallHeader.run],
      deadlineAt: headers[ToolCallHeader.deadline],
    });
  },
  'tool-call-request': (json) => ToolCallRequest.parse(json),
  'tool-call-response': (json) => ToolCallResponse.parse(json),
  'tool-endpoint-metadata': (json) => ToolEndpointMetadata.parse(json),
  'chat-message': (json) => ChatMessage.parse(json),
};

async function fixtureFiles(): Promise<string[]> {
  return (await readdir(fixturesDir)).filter((f) => f.endsWith('.json')).sort();
}

describe('message fixtures', async () => {
  const files = await fixtureFiles();

  it('exist for every message kind', () => {
    for (const prefix of Object.keys(schemaByPrefix)) {
      expect(
        files.some((f) => f.startsWith(prefix)),
        `no fixture for ${prefix}`,
      ).toBe(true);
    }
  });

  it.each(files)('%s parses with its schema', async (file) => {
    const prefix = Object.keys(schemaByPrefix).find((p) => file.startsWith(`${p}.`) || file === `${p}.json`);
    expect(prefix, `fixture ${file} has no schema mapping`).toBeDefined();
    const json: unknown = JSON.parse(await readFile(path.join(fixturesDir, file), 'utf8'));
    expect(() => schemaByPrefix[prefix!]!(json)).not.toThrow();
  });
});

describe('tool protocol schemas', () => {
  it('round-trips a descriptor through endpoint metadata', () => {
    const descriptor = {
      kind: 'tool' as const,
      description: 'Adds numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      timeoutMs: 5000,
      requiresApproval: true,
      sideEffect: 'external' as const,
      version: '2.1.0',
      schemaHash: 'sha256:abc',
    };
    expect(parseToolDescriptor('add', toolEndpointMetadata(descriptor))).toEqual({ name: 'add', ...descriptor });
  });

  it('reads and writes the executor declaration (platform.executor), absent unless declared', () => {
    const descriptor = parseToolDescriptor('digest', validMetadata());
    expect(descriptor).not.toHaveProperty('executor');
    const declared = { ...descriptor, executor: true as const };
    expect(toolEndpointMetadata(declared)).toMatchObject({ 'platform.executor': 'true' });
    expect(parseToolDescriptor('digest', toolEndpointMetadata(declared))).toMatchObject({ executor: true });
    expect(parseToolDescriptor('digest', { ...validMetadata(), 'platform.executor': 'false' })).not.toHaveProperty(
      'executor',
    );
    expect(ToolEndpointMetadata.safeParse({ ...validMetadata(), 'platform.executor': 'yes' }).success).toBe(false);
  });

  it('rejects metadata with an input schema that is not JSON', () => {
    const bad = { ...validMetadata(), 'platform.input_schema': '{not json' };
    const result = ToolEndpointMetadata.safeParse(bad);
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toContain('platform.input_schema');
  });

  it('rejects a response with an unknown status', () => {
    expect(ToolCallResponse.safeParse({ status: 'maybe', output: 1 }).success).toBe(false);
  });

  it('rejects a tool message without a status', () => {
    expect(
      ChatMessage.safeParse({ role: 'tool', toolCallId: 'c1', toolName: 'x', content: 'ok', isError: false }).success,
    ).toBe(false);
  });
});

function validMetadata(): Record<string, string> {
  return {
    'platform.protocol': '1',
    'platform.kind': 'tool',
    'platform.description': 'd',
    'platform.input_schema': '{}',
    'platform.timeout_ms': '100',
    'platform.requires_approval': 'false',
    'platform.side_effect': 'none',
    'platform.version': '1',
    'platform.schema_hash': 'h',
  };
}

function issuePaths(result: z.ZodSafeParseResult<unknown>): string[] {
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
}
