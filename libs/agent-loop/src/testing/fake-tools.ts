import type { z } from 'zod';
import type { Clock } from '../clock.js';
import type { ToolCallContext, ToolCallRequest, ToolDescription, ToolOutcome, ToolPort } from '../tool-port.js';

export interface FakeTool {
  description?: string;
  kind?: 'tool' | 'agent';
  timeoutMs?: number;
  input?: z.ZodObject;
  /** Virtual time the call takes (on the given clock). */
  takesMs?: number;
  run: (args: Record<string, unknown>, context: ToolCallContext) => ToolOutcome | Promise<ToolOutcome>;
}

/** An in-process tool port for engine tests; records starts and ends to check concurrency. */
export class FakeTools implements ToolPort {
  readonly log: string[] = [];
  readonly calls: ToolCallRequest[] = [];

  constructor(
    private readonly tools: Record<string, FakeTool>,
    private readonly clock: Clock,
  ) {}

  list(): ToolDescription[] {
    return Object.entries(this.tools).map(([name, tool]) => ({
      name,
      description: tool.description ?? `${name} tool`,
      parameters: { type: 'object' },
      kind: tool.kind ?? 'tool',
      ...(tool.timeoutMs ? { timeoutMs: tool.timeoutMs } : {}),
    }));
  }

  async execute(call: ToolCallRequest, context: ToolCallContext): Promise<ToolOutcome> {
    const tool = this.tools[call.name];
    if (!tool) return { status: 'invalid', content: `no tool ${call.name}`, errorCode: 'UNKNOWN_TOOL' };
    this.calls.push(call);
    if (tool.input) {
      const parsed = tool.input.safeParse(call.arguments);
      if (!parsed.success)
        return {
          status: 'invalid',
          content: `invalid arguments: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
          errorCode: 'INVALID_ARGUMENTS',
        };
    }
    this.log.push(`start ${call.id}`);
    try {
      if (tool.takesMs) await this.clock.sleep(tool.takesMs, context.signal);
      return await tool.run(call.arguments, context);
    } catch (err) {
      return { status: 'failed', content: (err as Error).message, errorCode: 'THREW' };
    } finally {
      this.log.push(`end ${call.id}`);
    }
  }
}
