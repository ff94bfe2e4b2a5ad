/**
 * Creating and reading runs: `POST /runs` (JSON, or the run's event stream
 * with `Accept: text/event-stream`; once per `Idempotency-Key`), `GET /runs`, `GET /runs/:id`,
 * `GET /runs/:id/messages`, `GET /runs/:id/tree`.
 *
 * @module
 */
import type { Hono } from "hono";
import { newRun } from "../harness/state.ts";
import { RunConflictError } from "../harness/errors.ts";
import type { RunLimits } from "../harness/limits.ts";
import { loadTree } from "../subagents/tree.ts";
import type { Agent } from "../subagents/define_agent.ts";
import { stampOf } from "../runtime/agent_check.ts";
import { UnknownAgentError } from "../runtime/agent_registry.ts";
import type { RunSettings } from "../runtime/run_settings.ts";
import { narrowRun } from "../subagents/agent_run_options.ts";
import type { ResolvedDeps } from "./deps.ts";
import { BadRequestError } from "./errors.ts";
import { messageOf } from "../harness/message_of.ts";
import {
  type CreateRunBody,
  CreateRunSchema,
  ListQuerySchema,
  parseInput,
  readBody,
} from "./schemas.ts";
import { type Answer, answerOnce, sendAnswer } from "./idempotency.ts";
import { runIdParam, runView } from "./views.ts";

/** The agent a new run is of: the one named, else the scenario's, else the default (400 otherwise). */
function agentFor(deps: ResolvedDeps, body: CreateRunBody): Agent {
  const byScenario = body.scenario === undefined
    ? undefined
    : deps.scenarios?.agent?.(body.scenario);
  try {
    return deps.agents.pick(body.agent ?? byScenario);
  } catch (e) {
    if (e instanceof UnknownAgentError) throw new BadRequestError("agent", e.message);
    throw e;
  }
}

/** Picks the model name of a new run, checking it can be served (400 otherwise). */
function modelNameFor(deps: ResolvedDeps, agent: Agent, body: CreateRunBody): string {
  const { scenario, model } = body;
  if (agent.model !== undefined) {
    if (scenario !== undefined || model !== undefined) {
      const field = scenario !== undefined ? "scenario" : "model";
      throw new BadRequestError(field, `agent ${agent.name} has its own model`);
    }
    if (typeof agent.model !== "string") return agent.model.name;
  }
  if (scenario !== undefined) {
    if (model !== undefined) throw new BadRequestError("model", "give model or scenario, not both");
    const names = deps.scenarios?.names ?? [];
    if (!names.includes(scenario)) {
      const known = names.length ? `; known: ${[...names].sort().join(", ")}` : "";
      throw new BadRequestError("scenario", `unknown scenario "${scenario}"${known}`);
    }
  }
  const name = (typeof agent.model === "string" ? agent.model : undefined) ?? scenario ?? model ??
    deps.defaultModel;
  if (name === undefined) {
    throw new BadRequestError("model", "required: there is no default model (set LLM_MODEL)");
  }
  try {
    deps.makeModel(name);
  } catch (e) {
    const field = scenario !== undefined ? "scenario" : "model";
    throw new BadRequestError(field, messageOf(e));
  }
  return name;
}

/** A context policy's summary model must be one this server can make. */
function summaryModelOf(deps: ResolvedDeps, name: string | undefined): void {
  if (name === undefined) return;
  try {
    deps.makeModel(name);
  } catch (e) {
    throw new BadRequestError("options.context.summaryModel", messageOf(e));
  }
}

/** The options and limits of a new run: the agent's, narrowed by the request (400 when widened). */
function narrowed(
  deps: ResolvedDeps,
  agent: Agent,
  body: CreateRunBody,
): { options: RunSettings; limits: Partial<RunLimits> } {
  const { researchDepth: _d, researchWrites: _w, ...asked } = body.options ?? {};
  const run = narrowRun(agent, { options: asked, limits: body.limits }, deps.runDefaults);
  if ("widened" in run) {
    throw new BadRequestError(`${run.in}.${run.widened.field}`, run.widened.problem);
  }
  return run;
}

/**
 * Whether an `Accept` header asks for `text/event-stream` over JSON: by its
 * `q` (0 is "not acceptable"), else by order; `*\/*` and the like ask for JSON.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  let sse = { q: 0, at: Infinity }, json = { q: 0, at: Infinity };
  accept.toLowerCase().split(",").forEach((range, at) => {
    const [type = "", ...params] = range.split(";").map((p) => p.trim());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q >= 0 && q <= 1)) return; // a malformed q: the range is ignored
    if (type === "text/event-stream" && sse.at === Infinity) sse = { q, at };
    if (type === "application/json" && json.at === Infinity) json = { q, at };
  });
  return sse.q > 0 && (sse.q > json.q || (sse.q === json.q && sse.at < json.at));
}

/**
 * Creates and schedules a run for `body`: the answer of `POST /runs` (201).
 * `runId`: the id a keyed request's every attempt gives its run; a run of it
 * found already made (an earlier attempt's, whose answer a crash lost) is the
 * answer again.
 */
async function createRun(
  deps: ResolvedDeps,
  body: CreateRunBody,
  runId?: string,
): Promise<Answer> {
  const agent = agentFor(deps, body);
  const model = modelNameFor(deps, agent, body);
  summaryModelOf(deps, body.options?.context?.summaryModel);
  const task = body.task ??
    (body.scenario === undefined ? undefined : deps.scenarios?.task(body.scenario));
  if (task === undefined) {
    throw new BadRequestError("task", "required (unless `scenario` is given)");
  }
  const { options, limits } = narrowed(deps, agent, body);
  let state = newRun(task, {
    runId,
    system: agent.instructions, // "" (none): no system message
    model,
    limits,
    agent: agent.name,
  });
  try {
    // Saved with its settings (and its lease, when started here) in one commit.
    await deps.start(state, stampOf(await deps.agents.info(agent), options));
  } catch (e) {
    const made = runId && e instanceof RunConflictError
      ? await deps.freshStore().read(runId)
      : null;
    if (!made) throw e;
    state = made;
  }
  return {
    status: 201,
    body: runView(state, null),
    location: `/runs/${state.runId}`,
    runId: state.runId,
    streamAfter: -1,
  };
}

/**
 * Registers the run routes on `app`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerRunRoutes } from "./routes_runs.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * registerRunRoutes(app, resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * console.log(await (await app.request("/runs")).json()); // { runs: [] }
 * kv.close();
 * ```
 */
export function registerRunRoutes(app: Hono, deps: ResolvedDeps): void {
  app.post("/runs", async (c) => {
    const body = await readBody(c.req.raw, CreateRunSchema);
    const answer = await answerOnce(
      c,
      deps,
      { route: "runs" },
      body,
      ({ runId }) => createRun(deps, body, runId),
    );
    // A client that wants to wait follows the run on this answer (its bytes keep
    // a Deno Deploy instance alive); the run's id is in Location and every event.
    return sendAnswer(c, deps, answer, wantsEventStream(c.req.header("accept")));
  });

  app.get("/runs", async (c) => {
    const query = parseInput(ListQuerySchema, c.req.query(), "");
    return c.json({ runs: await deps.store.list(query) });
  });

  app.get("/runs/:id", async (c) => {
    const id = runIdParam(c);
    const store = deps.freshStore();
    const state = await store.read(id);
    return c.json(runView(state, await store.leaseHolder(id)));
  });

  app.get("/runs/:id/messages", async (c) => {
    const id = runIdParam(c);
    const state = await deps.freshStore().read(id);
    return c.json({ runId: id, messages: state.messages });
  });

  app.get("/runs/:id/tree", async (c) => {
    const id = runIdParam(c);
    const nodes = await loadTree(deps.freshStore(), id);
    return c.json({ rootId: nodes[0]?.runId ?? id, nodes });
  });
}
