import type { CallToolResult, CompatibilityCallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure } from '@platform/tool-sdk';

/** Decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * Renders one MCP content block as text for the model. Binary data (images, audio, blobs) becomes
 * a short placeholder: base64 would cost many tokens and mean nothing to a text model.
 */
function renderContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const { resource } = block;
      const mime = resource.mimeType ? `, ${resource.mimeType}` : '';
      if ('text' in resource) return `[resource: ${resource.uri}${mime}]\n${resource.text}`;
      return `[resource: ${resource.uri}${mime}, ${base64Bytes(resource.blob)} bytes]`;
    }
    case 'resource_link': {
      const mime = block.mimeType ? `, ${block.mimeType}` : '';
      return `[resource link: ${block.name} ${block.uri}${mime}]`;
    }
    default:
      // A content type newer than this SDK: say it was there rather than drop it silently.
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

/** The text of all content blocks, one block per paragraph. */
function renderContentBlocks(content: readonly ContentBlock[] | undefined): string {
  return (content ?? []).map(renderContent).join('\n');
}

/**
 * Maps an MCP `tools/call` result to the platform tool's output: `isError` becomes a ToolFailure
 * carrying the server's text (meant for the model, like any tool error); `structuredContent`, when
 * present, is the output object; otherwise the rendered text of the content blocks.
 */
export function mapCallResult(result: CallToolResult | CompatibilityCallToolResult): unknown {
  // Servers of protocol version 2024-10-07 answer `{ toolResult }` instead.
  if ('toolResult' in result && !('content' in result)) return result.toolResult;
  const { content, structuredContent, isError } = result as CallToolResult;
  const text = renderContentBlocks(content);
  if (isError) throw new ToolFailure(text || 'the MCP tool reported an error without a message');
  if (structuredContent !== undefined) return structuredContent;
  return text || '(the tool returned no content)';
}
