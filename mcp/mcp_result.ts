/**
 * Turning an MCP `tools/call` result into the text a model reads.
 *
 * @module
 */

/** One content block of a tool result, as MCP defines them (the fields reins reads). */
interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** A `tools/call` result (current shape, or the 2024-10 `toolResult` one). */
export interface McpCallResult {
  /** The content blocks. */
  content?: unknown;
  /** The tool's structured output, when it declares an output schema. */
  structuredContent?: unknown;
  /** True when the tool failed (its content says why). */
  isError?: boolean;
  /** The pre-2025 result shape. */
  toolResult?: unknown;
}

function block(b: ContentBlock): string {
  switch (b.type) {
    case "text":
      return b.text ?? "";
    case "image":
    case "audio":
      return `[${b.type} ${b.mimeType ?? ""}, ${Math.floor((b.data?.length ?? 0) * 3 / 4)} bytes]`;
    case "resource": {
      const r = b.resource ?? {};
      if (typeof r.text === "string") return r.text;
      return `[resource ${r.uri ?? ""} ${r.mimeType ?? ""}]`.replace(/ +]/, "]");
    }
    case "resource_link":
      return `[resource link ${b.name ?? ""} ${b.uri ?? ""}]`.replace(/ +]/, "]");
    default:
      return `[${b.type} content]`;
  }
}

/**
 * The text of a result: its text blocks joined by newlines (other blocks as a
 * short placeholder), else its structured content as JSON.
 *
 * @example
 * ```ts
 * import { resultText } from "./mcp_result.ts";
 * console.log(resultText({ content: [{ type: "text", text: "hello" }] })); // "hello"
 * ```
 */
export function resultText(result: McpCallResult): string {
  if (result.toolResult !== undefined) {
    return typeof result.toolResult === "string"
      ? result.toolResult
      : JSON.stringify(result.toolResult);
  }
  const blocks = Array.isArray(result.content)
    ? result.content.filter((b): b is ContentBlock =>
      typeof b === "object" && b !== null && typeof (b as ContentBlock).type === "string"
    )
    : [];
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return blocks.map(block).join("\n");
}
