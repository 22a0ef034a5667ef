// A tiny MCP server over stdio for the bridge's tests: it lists its tools in pages of two, has
// a tool whose input schema zod cannot convert, and adds a tool (announcing the change) on request.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const object = (properties = {}, extra = {}) => ({ type: 'object', properties, ...extra });
const tools = [
  { name: 'first', description: 'Page one, tool one.', inputSchema: object() },
  { name: 'dotted.name', description: 'Sanitized to dotted_name.', inputSchema: object() },
  { name: 'dotted/name', description: 'Collides with dotted.name after sanitizing.', inputSchema: object() },
  {
    name: 'exotic',
    description: 'An if/then schema zod cannot convert: the server validates.',
    inputSchema: object(
      { kind: { type: 'string' } },
      { if: { properties: { kind: { const: 'x' } } }, then: { required: ['x'] } },
    ),
  },
  { name: 'add-tool', description: 'Adds the tool "late" and announces the change.', inputSchema: object() },
];
const PAGE = 2;

const server = new Server({ name: 'paged', version: '0.3.1' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const next = start + PAGE;
  return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  if (name === 'exotic')
    return args.kind ? text(`kind ${args.kind}`) : { isError: true, ...text('exotic needs a kind') };
  if (name === 'add-tool') {
    if (!tools.some((t) => t.name === 'late'))
      tools.push({ name: 'late', description: 'Added at run time.', inputSchema: object() });
    await server.sendToolListChanged();
    return text('added');
  }
  if (tools.some((t) => t.name === name)) return text(`${name} ran`);
  return { isError: true, ...text(`unknown tool ${name}`) };
});
await server.connect(new StdioServerTransport());
