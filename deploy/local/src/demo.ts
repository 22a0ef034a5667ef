import type { ChatMessage } from '@platform/contracts';

interface TurnResult {
  runId: string;
  status: string;
  stopReason: string;
  response: string;
  turns: number;
  toolCalls: Array<{ name: string; success: boolean; status: string; durationMs: number }>;
  durationMs: number;
  usage: { inputTokens: number; outputTokens: number };
}

interface History {
  messages: Array<{ runId: string | null; message: ChatMessage }>;
}

const WIDTH = 100;

function clip(text: string, max = WIDTH): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

async function call<T>(url: string, token: string, init: { method: string; body?: unknown }): Promise<T> {
  const response = await fetch(url, {
    method: init.method,
    headers: { authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const body = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok)
    throw new Error(
      `${init.method} ${url} -> ${response.status} ${body.error?.code ?? ''}: ${body.error?.message ?? ''}`,
    );
  return body;
}

/** Renders one turn's stored messages as a readable exchange. */
export function renderExchange(messages: ChatMessage[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        lines.push(`  you    › ${clip(message.content)}`);
        break;
      case 'assistant':
        for (const tool of message.toolCalls ?? [])
          lines.push(`  model  › calls ${tool.name} ${clip(tool.arguments, WIDTH - 20)}`);
        if (message.content) lines.push(`  model  › ${clip(message.content, 400)}`);
        break;
      case 'tool':
        lines.push(
          `  tool   › ${message.toolName} ${message.isError ? '✗' : '→'} ${clip(message.content, WIDTH - 20)}`,
        );
        break;
      case 'system':
        break;
    }
  }
  return lines;
}

/** Sends one message through the HTTP API, then prints the exchange as stored in memory. */
export async function runDemoConversation(
  apiUrl: string,
  token: string,
  content: string,
  write: (line: string) => void,
): Promise<TurnResult> {
  const conversationId = `demo-${Date.now().toString(36)}`;
  const turn = await call<TurnResult>(`${apiUrl}/v1/conversations/${conversationId}/messages`, token, {
    method: 'POST',
    body: { content },
  });
  const history = await call<History>(`${apiUrl}/v1/conversations/${conversationId}/messages`, token, {
    method: 'GET',
  });
  write(`Demo conversation ${conversationId} (POST /v1/conversations/${conversationId}/messages):`);
  write('');
  for (const line of renderExchange(history.messages.map((m) => m.message))) write(line);
  write('');
  const tools =
    turn.toolCalls.map((c) => `${c.name} ${c.success ? 'ok' : c.status} in ${c.durationMs} ms`).join(', ') || 'none';
  write(
    `  run ${turn.runId}: ${turn.status} (${turn.stopReason}), ${turn.turns} model turns, tools: ${tools}, ${turn.durationMs} ms, ${turn.usage.inputTokens}+${turn.usage.outputTokens} tokens`,
  );
  return turn;
}
