import assert from "node:assert/strict";
import { Tiktoken } from "npm:js-tiktoken@1.0.21/lite";
import o200k_base from "npm:js-tiktoken@1.0.21/ranks/o200k_base";
import { countTokens, loadTokenizer, truncateToTokens } from "../harness/tokens.ts";
import { ERRORS_LOG } from "../tools/fixtures.ts";

await loadTokenizer(); // the counting functions need the encoder loaded

const raw = new Tiktoken(o200k_base);

Deno.test("countTokens equals js-tiktoken's o200k_base encoder on ordinary text", () => {
  const schema = JSON.stringify({
    type: "object",
    properties: { path: { type: "string", description: "A path inside the workspace" } },
    required: ["path"],
    additionalProperties: false,
  });
  const b64 = btoa(String.fromCharCode(...Array.from({ length: 240 }, (_, i) => (i * 37) % 256)));
  for (
    const text of [
      ERRORS_LOG,
      "Which file mentions a timeout?",
      "a b c ".repeat(500),
      schema,
      b64,
      "<|endoftext|> marker <|im_start|>user",
      "héllo wörld 你好世界 🙂👍🏽 can't I'M 12,345.67 0xdeadbeef\n\n\t x",
    ]
  ) {
    assert.equal(countTokens(text), raw.encode(text, [], []).length);
  }
});

Deno.test("countTokens counts and cuts long runs of one character class", () => {
  // These stalled the encoder for seconds (quadratic merges); they are sliced.
  for (const text of ["ab".repeat(2500), "-".repeat(2500), " ".repeat(5000)]) {
    assert.ok(countTokens(text) > 0);
    const cut = truncateToTokens(text, 10);
    assert.ok(text.startsWith(cut) && countTokens(cut) <= 10 && cut.length > 0);
  }
});

async function tokenizerLoadedAfterRun(mode: "soft" | "hard") {
  const child = new URL("./fixtures/lazy_tokenizer_child.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--frozen", "-A", child, mode],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout).trim());
}

Deno.test("a soft-budget run with reported usage never loads the encoder; a hard one loads it", async () => {
  assert.deepEqual(await tokenizerLoadedAfterRun("soft"), {
    before: false,
    after: false,
    status: "completed",
  });
  assert.deepEqual(await tokenizerLoadedAfterRun("hard"), {
    before: false,
    after: true,
    status: "completed",
  });
});
