// Shared set-up for the KV store tests: a fake model, a read-only tool, a real
// in-memory KV that is always closed, and a KV wrapper that counts written bytes.
import { z } from "zod";
import type { Model, ModelRequest } from "../harness/model.ts";
import { defineTool } from "../harness/tool.ts";
import { keyBytes, valueBytes } from "../kv/chunks.ts";

/** A model that never answers: turn N calls `list_files` with id `c<N>`. */
export function runawayModel(delayMs = 0): Model & { calls: number } {
  const model = {
    name: "runaway",
    calls: 0,
    async complete(request: ModelRequest, signal: AbortSignal) {
      model.calls++;
      if (delayMs) await sleep(delayMs, signal);
      const turn = request.messages.filter((m) => m.role === "assistant").length + 1;
      return {
        message: {
          role: "assistant" as const,
          content: null,
          tool_calls: [{
            id: `c${turn}`,
            type: "function" as const,
            function: { name: "list_files", arguments: "{}" },
          }],
        },
        usage: { prompt_tokens: 100 + turn, completion_tokens: 10 },
        finishReason: "tool_calls",
      };
    },
  };
  return model;
}

/** A model that calls `tool` once, then answers "done". */
export function oneCallModel(tool: string, delayMs = 0): Model {
  return {
    name: "one-call",
    async complete(request, signal) {
      if (delayMs) await sleep(delayMs, signal);
      const called = request.messages.some((m) => m.role === "tool");
      return {
        message: called ? { role: "assistant", content: "done" } : {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: tool, arguments: "{}" } }],
        },
        usage: { prompt_tokens: 50, completion_tokens: 5 },
        finishReason: called ? "stop" : "tool_calls",
      };
    },
  };
}

/** The read-only tool the runaway model calls. */
export const listFiles = defineTool({
  name: "list_files",
  description: "Lists the workspace.",
  parameters: z.object({}),
  readOnly: true,
  run: () => "notes.txt\nserver.log\nconfig.json",
});

/** A read-only tool whose result is `text`. */
export function constantTool(name: string, text: string) {
  return defineTool({
    name,
    description: "Returns a fixed text.",
    parameters: z.object({}),
    readOnly: true,
    run: () => text,
  });
}

import { sleep } from "../harness/sleep.ts";
export { sleep };

/** Runs `fn` with a fresh in-memory KV, closed afterwards. */
export async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

/** Every key in the database. */
export async function allKeys(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: [] })) keys.push(e.key);
  return keys;
}

/**
 * A view of `kv` whose atomics add the size of every `set` to `bytes.n`, and
 * every commit (an atomic's, or a bare `set`/`delete`) to `commits.n`,
 * independently of what the store reports about itself.
 */
export function countingKv(
  kv: Deno.Kv,
): { kv: Deno.Kv; bytes: { n: number }; commits: { n: number } } {
  const bytes = { n: 0 };
  const commits = { n: 0 };
  const view = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const counted: Deno.AtomicOperation = new Proxy(op, {
            get(t, p) {
              const f = Reflect.get(t, p, t);
              if (typeof f !== "function") return f;
              return (...args: unknown[]) => {
                if (p === "set") bytes.n += keyBytes(args[0] as Deno.KvKey) + valueBytes(args[1]);
                if (p === "commit") commits.n++;
                const r = f.apply(t, args);
                return r === t ? counted : r;
              };
            },
          });
          return counted;
        };
      }
      const v = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      if (prop === "set" || prop === "delete") {
        return (...args: unknown[]) => {
          commits.n++;
          return v.apply(target, args);
        };
      }
      return v.bind(target);
    },
  });
  return { kv: view, bytes, commits };
}
