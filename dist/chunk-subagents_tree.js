import {
  agentTools,
  approve,
  childRunId,
  outputFormat,
  reject,
  run,
  treeSettled
} from "./chunk-harness_limits.js";
import {
  RunNotFoundError,
  RunStateError,
  messageOf
} from "./chunk-harness_errors.js";

// subagents/tree.ts
function canList(store) {
  return typeof store.list === "function";
}
function fields(s) {
  const { runId, parentId, status, turns, costUsd, childCostUsd, stopReason, createdAt } = s;
  const agent = s.agent === void 0 ? {} : {
    agent: s.agent
  };
  return {
    runId,
    parentId,
    ...agent,
    status,
    turns,
    costUsd,
    childCostUsd,
    stopReason,
    createdAt
  };
}
async function loadRoot(store, id) {
  const start = await store.load(id);
  return start.rootId === start.runId ? start : await store.load(start.rootId);
}
async function childrenOf(store, parent) {
  if (canList(store)) {
    const listed = await store.list({
      parentId: parent.runId,
      limit: 1e4
    });
    return listed.filter((s) => s.parentId === parent.runId).map(fields);
  }
  const state = "messages" in parent ? parent : await store.load(parent.runId);
  const out = [];
  for (const m of state.messages) {
    for (const call of m.role === "assistant" ? m.tool_calls ?? [] : []) {
      try {
        out.push(fields(await store.load(childRunId(state.runId, call.id))));
      } catch (e) {
        if (!(e instanceof RunNotFoundError)) throw e;
      }
    }
  }
  return out;
}
async function loadTree(store, id) {
  const root = await loadRoot(store, id);
  const out = [];
  const visit = async (node, source, depth) => {
    out.push({
      ...node,
      depth
    });
    const kids = await childrenOf(store, source);
    kids.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.runId.localeCompare(b.runId));
    for (const k of kids) await visit(k, k, depth + 1);
  };
  await visit(fields(root), root, 0);
  return out;
}
function formatTree(nodes) {
  return nodes.map((n) => {
    const indent = n.depth ? `${"   ".repeat(n.depth - 1)}\u2514\u2500 ` : "";
    const children = n.childCostUsd > 0 ? ` (children $${n.childCostUsd.toFixed(6)})` : "";
    const why = n.stopReason ? `  ${n.stopReason}` : "";
    return `${indent}${n.runId}  ${n.status}  ${n.turns} turns  $${n.costUsd.toFixed(6)}${children}${why}`;
  }).join("\n");
}
async function holder(store, id, action) {
  const root = await loadRoot(store, id);
  const i = root.interruption;
  if (root.status !== "interrupted" || i?.type !== "approval") {
    throw new RunStateError(root.runId, root.status, `${action} a call in the tree of`, `the tree is not awaiting a verdict (root status ${root.status})`);
  }
  return !i.runId || i.runId === root.runId ? root : await store.load(i.runId);
}
async function approveInTree(store, id, callId) {
  const next = approve(await holder(store, id, "approve"), callId);
  await store.save(next);
  return next;
}
async function rejectInTree(store, id, callId, reason) {
  const next = reject(await holder(store, id, "reject"), callId, reason);
  await store.save(next);
  return next;
}
async function resumeTree(store, id, options) {
  const root = await loadRoot(store, id);
  try {
    return await run(root, {
      ...options,
      store
    });
  } finally {
    await treeSettled(root.runId);
  }
}

// subagents/describe_agent.ts
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== void 0).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
async function hashOf(value) {
  const bytes = new TextEncoder().encode(canonical(value));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}
function usesTree(agent) {
  return typeof agent.tools === "function" || agent.agents.some(usesTree);
}
async function describeWith(agent, tools, dir, resolveModel) {
  const agents = [];
  for (const child of agent.agents) {
    const childTools = await agentTools(child, {
      rootId: "",
      dir
    }, resolveModel);
    agents.push(await describeWith(child, childTools, dir, resolveModel));
  }
  const described = tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.jsonSchema
  }));
  const model = agent.model === void 0 ? null : typeof agent.model === "string" ? agent.model : agent.model.name;
  const limits = {
    ...agent.limits
  };
  const output = outputOf(agent);
  const fingerprint = await hashOf({
    instructions: agent.instructions,
    model,
    limits,
    tools: described.map((t) => ({
      name: t.name,
      parameters: t.parameters
    })),
    // Only a typed agent's: the fingerprints of the others stay what they were.
    output: output ?? void 0,
    agents: agents.map((a) => a.fingerprint)
  });
  return {
    name: agent.name,
    description: agent.description,
    instructions: agent.instructions,
    model,
    limits,
    tools: described,
    output,
    agents,
    fingerprint
  };
}
function outputOf(agent) {
  if (agent.output === void 0) return null;
  try {
    return outputFormat(agent.output).valueSchema;
  } catch (e) {
    throw new TypeError(`agent ${agent.name}: ${messageOf(e)}`);
  }
}
async function describeAgent(agent, options = {}) {
  const temp = usesTree(agent) ? await Deno.makeTempDir({
    prefix: "reins-describe-"
  }) : "";
  try {
    const dir = temp ? `${temp}/tree` : "";
    const own = await agentTools(agent, {
      rootId: "",
      dir
    }, options.resolveModel);
    const tools = [
      ...own,
      ...options.extraTools ?? []
    ];
    const names = new Set(own.map((t) => t.name));
    const clash = (options.extraTools ?? []).find((t) => names.has(t.name));
    if (clash) {
      throw new TypeError(`agent ${agent.name}: a process tool is also named "${clash.name}"`);
    }
    return await describeWith(agent, tools, dir, options.resolveModel);
  } finally {
    if (temp) await Deno.remove(temp, {
      recursive: true
    }).catch(() => {
    });
  }
}
async function toolTable(d, prefix = "") {
  const path = prefix ? `${prefix}/${d.name}` : d.name;
  const own = {};
  for (const t of d.tools) own[t.name] = await hashOf(t.parameters);
  let table = {
    [path]: own
  };
  for (const child of d.agents) table = {
    ...table,
    ...await toolTable(child, path)
  };
  return table;
}

export {
  loadRoot,
  loadTree,
  formatTree,
  approveInTree,
  rejectInTree,
  resumeTree,
  hashOf,
  describeAgent,
  toolTable
};
