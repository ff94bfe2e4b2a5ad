// Shared set-up for tests: a fresh workspace, the demo tools, a scripted model
// that counts its requests at the provider.
import { createWorkspace, type Workspace } from "../tools/workspace.ts";
import { demoTools } from "../tools/catalog.ts";
import { scriptedModel, type ScriptedModelOptions } from "../testing/scripted_model.ts";
import type { Model } from "../harness/model.ts";
import type { AnyTool } from "../harness/run_options.ts";

export interface Fixture {
  ws: Workspace;
  tools: AnyTool[];
  model: Model;
  /** Model calls that reached the provider. */
  calls: { n: number };
  [Symbol.asyncDispose](): Promise<void>;
}

export async function fixture(
  scenario: string,
  options: ScriptedModelOptions = {},
): Promise<Fixture> {
  const ws = await createWorkspace();
  const calls = { n: 0 };
  const model = scriptedModel(scenario, {
    ...options,
    onRequest: (info) => {
      calls.n++;
      options.onRequest?.(info);
    },
  });
  return {
    ws,
    tools: demoTools(ws, { scan: { ms: 300 } }),
    model,
    calls,
    [Symbol.asyncDispose]: () => ws.remove(),
  };
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
