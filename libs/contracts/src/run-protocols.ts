import { z } from 'zod';

/**
 * The edge protocol a run's message came in by (docs/protocols.md): the platform's REST API, the
 * OpenAI Chat Completions facade, the OpenAI Responses API, MCP, A2A or AG-UI. Recorded with the
 * run; absent for a message the platform sent itself (a trigger's fire, a child run).
 */
export const RunProtocol = z.enum(['rest', 'chat_completions', 'responses', 'mcp', 'a2a', 'ag_ui']);
export type RunProtocol = z.infer<typeof RunProtocol>;
