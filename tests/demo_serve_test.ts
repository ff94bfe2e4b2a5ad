// The demo server in scripted mode builds its provider's tokenizer as it
// starts: not amid its first requests, where the build's garbage outlives the
// young generation under a burst (bench:load, issue 29). Its own file: the
// tokenizer is built once per isolate.
import assert from "node:assert/strict";
import { tokenizerLoaded } from "../harness/tokens.ts";
import { readEnv } from "../runtime/env.ts";
import { demoServeOptions } from "../demo/process.ts";
import { sleep } from "../harness/sleep.ts";
import { waitFor } from "./server_http.ts";

Deno.test("a scripted demo server builds the tokenizer as it starts; an unscripted one does not", async () => {
  assert.equal(tokenizerLoaded(), false);
  demoServeOptions(readEnv({ REINS_SCRIPTED: "0" }));
  await sleep(300);
  assert.equal(tokenizerLoaded(), false, "a server without scenarios may never count tokens");
  demoServeOptions(readEnv({ REINS_SCRIPTED: "1" }));
  await waitFor(() => Promise.resolve(tokenizerLoaded() || undefined), "the tokenizer");
});
