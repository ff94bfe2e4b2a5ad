/**
 * The run inspector: a page served by the same app, with no build step.
 *
 * - `GET /` lists the runs; `GET /ui/runs/:id` shows one run: its state in
 *   words, its tree, its transcript, live activity, and Approve, Reject, Stop.
 *   Both are rendered on the server, so they read without JavaScript. They
 *   carry no run data unless the request is authorized (no `REINS_TOKEN`, or
 *   the right bearer token): a browser navigation sends no token, so with one
 *   set the page's script asks for it and loads the data itself.
 * - `GET /ui/parts/runs` and `GET /ui/parts/runs/:id` (behind the bearer
 *   token like every API route) return the same HTML fragments as JSON, for
 *   the script to refresh the page in place.
 * - `GET /ui/static/<name>.js` (the page's script modules, `main.js` the
 *   entry) and `GET /ui/static/inspector.css`: the page's assets.
 *
 * Pages go out with a strict Content-Security-Policy (no inline script or
 * style), on top of escaping everything a run holds.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { RunNotFoundError } from "../harness/errors.ts";
import { RecordError } from "../kv/record_error.ts";
import { storedTask } from "../kv/stored_task.ts";
import { loadSpend } from "./inspector/spend.ts";
import { renderBudget } from "./inspector/budget_picture.ts";
import { readStop, type StopRequest } from "../kv/stop_record.ts";
import type { KvRunStore } from "../kv/kv_run_store.ts";
import { loadTree } from "../subagents/tree.ts";
import { bearerToken, safeEqual } from "./auth.ts";
import type { ResolvedDeps } from "./deps.ts";
import {
  ASSETS,
  type Html,
  listCounts,
  type ListedRun,
  loadToolRows,
  renderControls,
  renderErrorMain,
  renderListMain,
  renderNewRun,
  renderPage,
  renderRunList,
  renderRunMain,
  renderSummary,
  renderTranscript,
  renderTree,
  type RunPageData,
  taskOf,
  transcriptOptions,
} from "./inspector/mod.ts";
import { BadRequestError } from "./errors.ts";
import { runIdParam, runView } from "./views.ts";
import { cutText } from "../harness/text.ts";

/** Root runs shown in the list at most. */
const LIST_ROOTS = 100;
/** Runs read to find them (children are listed too). */
const LIST_SCAN = 1000;

/** Headers of every inspector page and asset. */
const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function page(c: Context, body: Html, status = 200): Response {
  return c.body(String(body), status as 200, {
    ...PAGE_HEADERS,
    "content-type": "text/html; charset=utf-8",
  });
}

/** Whether the request may see run data: no token is set, or it carries the right one. */
async function authorized(c: Context, token: string | undefined): Promise<boolean> {
  if (!token) return true;
  const given = bearerToken(c.req.header("authorization"));
  return given !== null && await safeEqual(given, token);
}

/** The root runs of the list, newest first, with their tasks and subagent counts. */
export async function loadRunList(deps: ResolvedDeps): Promise<ListedRun[]> {
  const all = await deps.store.list({ limit: LIST_SCAN });
  const subagents = new Map<string, number>();
  for (const r of all) {
    if (r.parentId !== null) subagents.set(r.rootId, (subagents.get(r.rootId) ?? 0) + 1);
  }
  const roots = all.filter((r) => r.parentId === null).slice(0, LIST_ROOTS);
  return await Promise.all(roots.map(async (run) => ({
    run,
    task: cutText(await storedTask(deps.store, run.runId), 1000),
    subagents: subagents.get(run.runId) ?? 0,
    stop: run.status === "running" ? await readStop(deps.kv, run.runId) : null,
  })));
}

/** Everything the page of run `id` shows (`RunNotFoundError` for an unknown run). */
export async function loadRunPage(deps: ResolvedDeps, id: string): Promise<RunPageData> {
  const store: KvRunStore = deps.freshStore();
  const state = await store.load(id);
  const run = runView(state, await store.leaseHolder(id));
  const root = state.rootId === state.runId
    ? run
    : runView(await store.load(state.rootId), await store.leaseHolder(state.rootId));
  const [tree, stop] = await Promise.all([
    loadTree(store, id),
    readStop(deps.kv, root.runId) as Promise<StopRequest | null>,
  ]);
  const nodes = await Promise.all(
    tree.map(async (n) => ({ ...n, interruption: (await store.summary(n.runId)).interruption })),
  );
  const tools = await loadToolRows(store, tree.map((n) => n.runId));
  const spend = await loadSpend(store, state, tree);
  return {
    run,
    messages: state.messages,
    repairs: state.outputRepairs,
    root,
    nodes,
    stop,
    tools,
    spend,
  };
}

/** The fragments of a run page, as `GET /ui/parts/runs/:id` returns them. */
export function runParts(d: RunPageData): Record<string, unknown> {
  return {
    runId: d.run.runId,
    rootId: d.root.runId,
    status: d.run.status,
    rootStatus: d.root.status,
    messageCount: d.messages.length,
    nodes: d.nodes.map((n) => ({ runId: n.runId, status: n.status, depth: n.depth })),
    summary: String(renderSummary(d)),
    controls: String(renderControls(d)),
    tree: String(renderTree(d)),
    budget: d.spend ? String(renderBudget(d.spend, d.root.runId)) : "",
    transcript: String(renderTranscript(d.messages, d.repairs, transcriptOptions(d))),
  };
}

/** `GET /`: the run list (when authorized) under the new-run form. */
async function listPage(c: Context, deps: ResolvedDeps): Promise<Response> {
  let list: Html | null = null;
  if (await authorized(c, deps.token)) {
    try {
      list = renderRunList(await loadRunList(deps));
    } catch (e) {
      if (!(e instanceof RecordError)) throw e;
      const body = renderErrorMain("The runs could not be read", e.message);
      return page(c, renderPage({ title: "Runs · reins", page: "list", body }), 500);
    }
  }
  const form = renderNewRun(deps.agents.names, deps.agents.defaultName);
  const body = renderListMain(list, form);
  return page(c, renderPage({ title: "Runs · reins", page: "list", body, locked: !list }));
}

/** `GET /ui/runs/:id`: one run's page (its data only when authorized). */
async function runPage(c: Context, deps: ResolvedDeps): Promise<Response> {
  let id: string;
  try {
    id = runIdParam(c);
  } catch (e) {
    const message = e instanceof BadRequestError ? e.message : String(e);
    const body = renderErrorMain("Not a run id", message);
    return page(c, renderPage({ title: "Bad run id · reins", page: "list", body }), 400);
  }
  if (!(await authorized(c, deps.token))) {
    const body = renderRunMain(null);
    return page(
      c,
      renderPage({ title: "Run · reins", page: "run", runId: id, body, locked: true }),
    );
  }
  try {
    const d = await loadRunPage(deps, id);
    const title = `${d.run.status} · ${cutText(taskOf(d.messages), 60)} · reins`;
    return page(c, renderPage({ title, page: "run", runId: id, body: renderRunMain(d) }));
  } catch (e) {
    if (e instanceof RecordError) {
      const body = renderErrorMain("The run could not be read", e.message);
      return page(c, renderPage({ title: "Run · reins", page: "list", body }), 500);
    }
    if (!(e instanceof RunNotFoundError)) throw e;
    const body = renderErrorMain("No such run", `There is no run "${id}".`);
    return page(c, renderPage({ title: "No such run · reins", page: "list", body }), 404);
  }
}

/**
 * Registers the pages and their assets. Call it before the bearer-token
 * middleware: a page shows run data only to an authorized request itself.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerInspectorPages } from "./inspector.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * registerInspectorPages(app, resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * console.log((await app.request("/")).headers.get("content-type")); // text/html; charset=utf-8
 * kv.close();
 * ```
 */
export function registerInspectorPages(app: Hono, deps: ResolvedDeps): void {
  app.get("/", (c) => listPage(c, deps));
  app.get("/ui/runs/:id", (c) => runPage(c, deps));
  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`/ui/static/${name}`, (c) =>
      c.body(asset.text, 200, {
        ...PAGE_HEADERS,
        "content-type": asset.type,
        "cache-control": "no-cache",
      }));
  }
}

/**
 * Registers the fragments the page's script refreshes from. Call it after the
 * bearer-token middleware (they are run data, like the API).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { registerInspectorParts } from "./inspector.ts";
 * import { resolveDeps } from "./deps.ts";
 * import { KvRunStore } from "../kv/kv_run_store.ts";
 * import { defineAgent } from "../subagents/define_agent.ts";
 * const kv = await Deno.openKv(":memory:");
 * const app = new Hono();
 * const agents = [defineAgent({ name: "a", instructions: "Be brief.", tools: [] })];
 * registerInspectorParts(app, resolveDeps({ kv, store: new KvRunStore(kv), agents }));
 * console.log((await (await app.request("/ui/parts/runs")).json()).count); // 0
 * kv.close();
 * ```
 */
export function registerInspectorParts(app: Hono, deps: ResolvedDeps): void {
  app.get("/ui/parts/runs", async (c) => {
    const runs = await loadRunList(deps);
    c.header("cache-control", "no-store");
    return c.json({
      count: runs.length,
      counts: listCounts(runs),
      html: String(renderRunList(runs)),
    });
  });

  app.get("/ui/parts/runs/:id", async (c) => {
    const id = runIdParam(c);
    c.header("cache-control", "no-store");
    return c.json(runParts(await loadRunPage(deps, id)));
  });
}
