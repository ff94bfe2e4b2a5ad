import assert from "node:assert/strict";
import { readFileTool } from "../../tools/read_file.ts";
import { createWorkspace } from "../../tools/workspace.ts";
import { standaloneContext } from "../../harness/tool.ts";
import { clip } from "../../server/inspector/format.ts";
import { quote } from "../../cli/table.ts";
import { KvEventLog } from "../../kv/events.ts";

const EMOJI = "😀"; // two UTF-16 code units

Deno.test("read_file cuts a long file between characters, never inside an emoji", async () => {
  const ws = await createWorkspace();
  try {
    // The cut at maxChars = 10 falls between the two halves of the emoji.
    await Deno.writeTextFile(`${ws.dir}/emoji.txt`, "a".repeat(9) + EMOJI.repeat(20));
    const out = String(
      await readFileTool(ws, { maxChars: 10 }).run(
        { path: "emoji.txt" },
        standaloneContext({ runId: "r", callId: "c" }),
      ),
    );
    assert.ok(out.isWellFormed(), `not well formed: ${JSON.stringify(out.slice(0, 12))}`);
    assert.ok(out.startsWith("a".repeat(9)));
  } finally {
    await ws.remove();
  }
});

Deno.test("previews in the inspector and the CLI tables keep emoji whole", () => {
  const text = "b".repeat(8) + EMOJI.repeat(10);
  assert.ok(clip(text, 10).isWellFormed(), "inspector clip");
  const q = JSON.parse(quote(text, 10));
  assert.ok(q.isWellFormed(), "cli quote");
});

Deno.test("a trace event cut to fit one KV value keeps emoji whole", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const log = new KvEventLog(kv);
    // Odd length so the halving cut lands inside a pair.
    const error = "c" + EMOJI.repeat(40_001);
    await log.sink()({
      type: "tool_result",
      runId: "r1",
      toolName: "t",
      callId: "c1",
      ms: 1,
      ok: false,
      error,
      at: new Date().toISOString(),
    });
    const [stored] = await log.read("r1");
    const e = stored.event as { error: string };
    assert.ok(e.error.length < error.length, "the event was cut");
    assert.ok(e.error.isWellFormed(), "the cut event text is well formed");
  } finally {
    kv.close();
  }
});
