// A run's summary (`KvRunStore.summary`, `list`, `GET /runs`) carries exactly the
// fields its response schema documents: bookkeeping of the header stays out.
import assert from "node:assert/strict";
import { newRun } from "../harness/state.ts";
import { KvRunStore } from "../kv/kv_run_store.ts";
import { RunSummaryResponse } from "../server/response_schemas.ts";
import { withKv } from "./kv_helpers.ts";

Deno.test("a summary has only the documented fields, whatever bookkeeping the run holds", () =>
  withKv(async (kv) => {
    const store = new KvRunStore(kv);
    const s = newRun("hi", { agent: "support" }); // the agent: in summaries when set
    // Every optional or internal field a header may carry, set.
    s.promptRatio = 1.25;
    s.modelCall = { turn: 1, since: s.createdAt, promptTokens: 10 };
    s.callSpend = { c1: 0.5 };
    s.resultCache = { k: "v" };
    await store.save(s);
    const expected = Object.keys(RunSummaryResponse.shape).sort();
    for (const summary of [await store.summary(s.runId), (await store.list())[0]]) {
      assert.deepEqual(Object.keys(summary).sort(), expected);
      RunSummaryResponse.strict().parse(summary);
    }
  }));
