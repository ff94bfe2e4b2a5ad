/**
 * The zod schemas of the API's responses, from which `/openapi.json`
 * documents every response body (so clients can be generated). The routes'
 * views are type-checked against them below, so a field added to a view
 * without its schema fails `deno check`.
 *
 * @module
 */
import { z } from "zod";
import { RUN_STATUSES, type RunStatus } from "../harness/state.ts";
import { runLimitsSchema } from "../harness/limits.ts";
import { agentOptionsSchema } from "../subagents/agent_options.ts";
import { failureSchema, interruptionSchema, messageSchema } from "../kv/record.ts";
import type { RunView } from "./views.ts";
import type { TreeNode } from "../subagents/tree.ts";
import type { StopRequest } from "../kv/stop_record.ts";

const status = z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]);
const count = z.int().min(0);
const usd = z.number().min(0);

/** A run without its transcript, as `GET /runs` lists it. */
export const RunSummaryResponse = z.object({
  runId: z.string(),
  parentId: z.string().nullable(),
  rootId: z.string(),
  status,
  interruption: interruptionSchema.nullable(),
  stopReason: z.string().nullable(),
  model: z.string().nullable(),
  agent: z.string().optional().describe(
    "The agent the run is of (absent on runs made without one)",
  ),
  turns: count,
  toolRuns: count.describe(
    "Tool executions started (a call cut short and run again counts each time; cached " +
      "and rejected calls do not)",
  ),
  costUsd: usd.describe("This run's spend, its descendants' included"),
  childCostUsd: usd,
  estimatedUsd: usd.describe(
    "Of costUsd, the estimated prompts of model calls a crash left unanswered",
  ),
  usage: z.object({ prompt_tokens: count, completion_tokens: count }),
  output: z.json().nullable().describe(
    "The final answer: its text, or, for a run with an output schema, the parsed value",
  ),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messageCount: count,
});

/** A lease: who executes the run, until when. */
export const LeaseResponse = z.object({
  owner: z.string(),
  expiresAt: z.number().describe("Epoch ms"),
  host: z.string().optional(),
  pid: z.int().optional(),
});

/** `GET /runs/:id`, `POST /runs` (201) and the verdict routes (202): a run's view. */
export const RunViewResponse = RunSummaryResponse.extend({
  failure: failureSchema.nullable().describe(
    "Why the run failed, as data, when the failure has a shape (invalid_output: the raw answer " +
      "and each issue's path and message; refusal: a typed run's refused answer, its words)",
  ),
  limits: runLimitsSchema(),
  lease: LeaseResponse.nullable(),
  compaction: z.object({
    compactions: count,
    costUsd: usd.describe("Of costUsd, what the summary calls cost"),
    summaryTurns: count.describe("Turns the current summary stands for in the prompt"),
  }).nullable().describe("The run's compactions (context policy); null before the first"),
  forkedFrom: z.object({ runId: z.string(), turn: count }).optional().describe(
    "Set on a fork: the run and turn it was forked from",
  ),
});

/** One agent of `GET /agents`. */
export const AgentResponse = z.object({
  name: z.string(),
  description: z.string(),
  default: z.boolean().describe("Runs that name no agent are of this one"),
  tools: z.array(z.object({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()).describe("JSON Schema of the arguments"),
  })).describe("Every tool a run of it gets, one per child agent included"),
  output: z.record(z.string(), z.unknown()).nullable().describe(
    "JSON Schema of its typed answer (a run's `output` is then that value); null: a text answer",
  ),
  fingerprint: z.string().describe(
    "A hash of the definition (instructions, tools, output schema, model, limits, children): " +
      "it changes with every deploy that changes the agent",
  ),
  agents: z.array(z.string()).describe("Its child agents (each is one of its tools)"),
  limits: z.object({ maxTurns: count, maxBudgetUsd: usd }).describe(
    "The highest limits a run may have (a request may only lower them)",
  ),
  options: agentOptionsSchema().describe(
    "Its run options as defined: a request may only narrow them (a hard budget mode, " +
      "stricter tool errors, lower concurrency); unset ones take the server's defaults",
  ),
});

/** `GET /agents`. */
export const AgentListResponse = z.object({ agents: z.array(AgentResponse) });

/** `GET /runs`. */
export const RunListResponse = z.object({ runs: z.array(RunSummaryResponse) });

/** `GET /runs/:id/messages`. */
export const MessagesResponse = z.object({ runId: z.string(), messages: z.array(messageSchema) });

/** One node of `GET /runs/:id/tree`. */
export const TreeNodeResponse = z.object({
  runId: z.string(),
  parentId: z.string().nullable(),
  agent: z.string().optional().describe("The node's agent (a child's: its child agent's name)"),
  depth: count,
  status,
  turns: count,
  costUsd: usd,
  childCostUsd: usd,
  stopReason: z.string().nullable(),
  createdAt: z.string(),
});

/** `GET /runs/:id/tree`. */
export const TreeResponse = z.object({ rootId: z.string(), nodes: z.array(TreeNodeResponse) });

/** `POST /runs/:id/stop` (202): the Stop recorded for the tree. */
export const StopResponse = z.object({
  runId: z.string(),
  rootId: z.string(),
  reason: z.string(),
  at: z.string().describe("When the Stop was recorded (ISO 8601, like every time in the API)"),
});

/** Every error body. */
export const ErrorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});

// Compile-time guards: the views the routes send must be what the schemas say. Read back
// without `undefined`, which zod's `.optional()` admits and JSON never carries (it differs
// from `?: T` only under exactOptionalPropertyTypes).
type Sent<T> = T extends readonly unknown[] ? T
  : T extends object ? { [K in keyof T]: Sent<Exclude<T[K], undefined>> }
  : T;
({} as RunView) satisfies z.infer<typeof RunViewResponse>;
({} as Sent<z.infer<typeof RunViewResponse>>) satisfies RunView;
({} as TreeNode) satisfies z.infer<typeof TreeNodeResponse>;
({} as Omit<StopRequest, "at"> & { runId: string; at: string }) satisfies z.infer<
  typeof StopResponse
>;
