// The tools of an MCP server in a run: the reference filesystem server over stdio,
// confined to a temporary folder. Destructive tools (write_file, move_file, …) wait
// for approval; read-only ones run at once. Run: deno run -A examples/mcp_filesystem.ts
import { mcpTools } from "../mcp/mod.ts";
import { type Model, newRun, run } from "../mod.ts";

const dir = await Deno.makeTempDir();
await Deno.writeTextFile(`${dir}/notes.txt`, "MCP tools, reins runs.");

await using fs = await mcpTools({
  command: "npx",
  args: ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", dir],
  stderr: "ignore",
});

// A stand-in for a real model: reads the file, then says what it read.
const model: Model = {
  name: "example",
  complete: ({ messages }) => {
    const last = messages.at(-1)!;
    const message = last.role === "tool"
      ? { role: "assistant" as const, content: `The file says: ${last.content}` }
      : {
        role: "assistant" as const,
        content: null,
        tool_calls: [{
          id: "c1",
          type: "function" as const,
          function: {
            name: "read_text_file",
            arguments: JSON.stringify({ path: `${dir}/notes.txt` }),
          },
        }],
      };
    return Promise.resolve({
      message,
      usage: { prompt_tokens: 100, completion_tokens: 10 },
      finishReason: "stop",
    });
  },
};

const done = await run(newRun("What does notes.txt say?"), { model, tools: fs.tools });
console.log(done.status, "-", done.output);
await Deno.remove(dir, { recursive: true });
