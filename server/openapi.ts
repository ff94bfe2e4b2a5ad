/**
 * The OpenAPI 3.1 document of the API (`GET /openapi.json`): request schemas
 * generated from the same zod schemas the routes validate with, response
 * schemas from those of response_schemas.ts; the paths written by hand.
 *
 * @module
 */
import { z } from "zod";
import {
  ApproveSchema,
  CreateRunSchema,
  EventsQuerySchema,
  ListQuerySchema,
  RejectSchema,
  ResumeSchema,
  RunIdSchema,
  StopSchema,
} from "./schemas.ts";
import {
  AgentListResponse,
  ErrorResponse,
  MessagesResponse,
  RunListResponse,
  RunViewResponse,
  StopResponse,
  TreeResponse,
} from "./response_schemas.ts";

import { addConversationRoutes } from "./openapi_conversation.ts";
import { idempotencyErrors, idempotencyParam, replayedHeader } from "./openapi_idempotency.ts";

type Json = Record<string, unknown>;

function schema(s: z.ZodType, io: "input" | "output" = "input"): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io }) as Json;
  return rest;
}

const responseSchemas = {
  AgentList: AgentListResponse,
  Run: RunViewResponse,
  RunList: RunListResponse,
  Messages: MessagesResponse,
  Tree: TreeResponse,
  StopRecorded: StopResponse,
  Error: ErrorResponse,
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (s: Json) => ({ "application/json": { schema: s } });
const error = (description: string) => ({ description, content: json(ref("Error")) });
const body = (name: string, required = true) => ({ required, content: json(ref(name)) });

const idParam = { name: "id", in: "path", required: true, schema: schema(RunIdSchema) };

function queryParams(s: z.ZodObject): Json[] {
  const props = (schema(s)["properties"] ?? {}) as Record<string, Json>;
  return Object.entries(props).map(([name, p]) => ({
    name,
    in: "query",
    required: false,
    schema: p,
  }));
}

const common = {
  "400": error("Invalid input; `error.field` names the field"),
  "401": error("Missing or wrong bearer token (when `REINS_TOKEN` is set)"),
};
const forRun = { ...common, "404": error("No such run") };
const bodyErrors = {
  "413": error(
    "The body is larger than the limit (2 MiB), or a field is longer than its own " +
      "(`error.field` names it, the message says the limit)",
  ),
  "415": error("A body that is not sent as `application/json`"),
};

/** A route steering a tree: answered once per `Idempotency-Key`, as the routes that create. */
function control(
  summary: string,
  bodyName: string,
  required: boolean,
  accepted = "Run",
  done = "Accepted; the run continues in the background.",
): Json {
  return {
    post: {
      summary,
      parameters: [idParam, idempotencyParam],
      requestBody: body(bodyName, required),
      responses: {
        "202": {
          description: `${done} A replay ` +
            "(`Idempotent-Replayed: true`) is the first answer, and nothing is done again",
          headers: replayedHeader,
          content: json(ref(accepted)),
        },
        ...forRun,
        ...bodyErrors,
        ...idempotencyErrors,
      },
    },
  };
}

/** `GET /agents` and `POST /runs`, `GET /runs`. */
function agentAndRunPaths(): Json {
  return {
    "/agents": {
      get: {
        summary: "The agents this server serves: their tools (JSON Schema) and limits",
        responses: {
          "200": { description: "`{ agents }`", content: json(ref("AgentList")) },
          "401": common["401"],
        },
      },
    },
    "/runs": {
      post: {
        summary: "Create a run; it executes in the background",
        description: "With `Accept: text/event-stream` the answer is the run's event stream " +
          "(as `GET /runs/{id}/events`, keep-alive comments every 10 s) instead of its summary.",
        requestBody: body("CreateRun"),
        parameters: [{
          name: "Accept",
          in: "header",
          required: false,
          schema: { type: "string", enum: ["application/json", "text/event-stream"] },
        }, idempotencyParam],
        responses: {
          "201": {
            description: "The run's summary, or its event stream; `Location` names the run. " +
              "A replay (`Idempotent-Replayed: true`) is the first answer's summary, or the " +
              "run's stream from its first event",
            headers: replayedHeader,
            content: { ...json(ref("Run")), "text/event-stream": { schema: { type: "string" } } },
          },
          ...common,
          ...bodyErrors,
          ...idempotencyErrors,
        },
      },
      get: {
        summary: "List runs, newest first",
        parameters: queryParams(ListQuerySchema),
        responses: {
          "200": { description: "`{ runs }`", content: json(ref("RunList")) },
          ...common,
        },
      },
    },
  };
}

/** The routes reading one run. */
function runReadPaths(): Json {
  return {
    "/runs/{id}": {
      get: {
        summary: "A run's summary, limits and lease",
        parameters: [idParam],
        responses: { "200": { description: "The run", content: json(ref("Run")) }, ...forRun },
      },
    },
    "/runs/{id}/messages": {
      get: {
        summary: "A run's transcript",
        parameters: [idParam],
        responses: {
          "200": { description: "`{ runId, messages }`", content: json(ref("Messages")) },
          ...forRun,
        },
      },
    },
    "/runs/{id}/tree": {
      get: {
        summary: "The run's tree: every node with status, turns and cost",
        parameters: [idParam],
        responses: {
          "200": { description: "`{ rootId, nodes }`", content: json(ref("Tree")) },
          ...forRun,
        },
      },
    },
    "/runs/{id}/events": {
      get: {
        summary: "The run's trace as server-sent events (`id:` is the seq; honours Last-Event-ID)",
        description: "A `: keep-alive` comment is sent after 10 s without an event. " +
          "A run's trace ends with its `run_stopped` (a final run's stream then ends); a " +
          "`run_handed_over` ({ reason, by, turns, costUsd }) says the process executing it " +
          "went away and the run, stored `running` again, continues elsewhere: not a stop.",
        parameters: [
          idParam,
          ...queryParams(EventsQuerySchema),
          { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "An event stream: `id:` the seq, `data:` the event (its `type` inside). " +
              "Only text deltas are named (`event: text_delta`); the others are plain messages.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...forRun,
        },
      },
    },
  };
}

/** The routes steering a tree, and this document. */
function controlPaths(): Json {
  return {
    "/runs/{id}/approve": control("Approve the call the tree awaits", "Approve", true),
    "/runs/{id}/reject": control("Reject the call the tree awaits, in words", "Reject", true),
    "/runs/{id}/resume": control(
      "Resume the tree (optionally with new limits)",
      "Resume",
      false,
      "Run",
      "Accepted; the run continues in the background (limits that leave it no new turn " +
        "end it again at once, at the same cap).",
    ),
    "/runs/{id}/stop": control(
      "Stop the whole tree of the run",
      "Stop",
      false,
      "StopRecorded",
      "The tree's Stop record: a running tree stops at once; a finished one stays as it is. " +
        "A tree already stopped answers with its first record (its reason, not this one's).",
    ),
    "/openapi.json": {
      get: {
        summary: "This document",
        responses: {
          "200": {
            description: "OpenAPI 3.1",
            content: json({ type: "object", additionalProperties: true }),
          },
          "401": common["401"],
        },
      },
    },
  };
}

/** The components: the security scheme and every request and response schema. */
function components(): Json {
  return {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    schemas: {
      CreateRun: schema(CreateRunSchema),
      Approve: schema(ApproveSchema),
      Reject: schema(RejectSchema),
      Resume: schema(ResumeSchema),
      Stop: schema(StopSchema),
      ...Object.fromEntries(
        Object.entries(responseSchemas).map(([name, s]) => [name, schema(s, "output")]),
      ),
    },
  };
}

/**
 * The OpenAPI document.
 *
 * @example
 * ```ts
 * import { openApiDocument } from "./openapi.ts";
 * console.log(Object.keys(openApiDocument().paths as object));
 * ```
 */
export function openApiDocument(): Record<string, unknown> {
  const doc = {
    openapi: "3.1.0",
    info: { title: "reins", version: "0.1.0", description: "Agent runs: create, watch, steer." },
    components: components() as { schemas: Json },
    security: [{ bearer: [] }],
    paths: { ...agentAndRunPaths(), ...runReadPaths(), ...controlPaths() } as Record<string, Json>,
  };
  addConversationRoutes(doc, schema, [idParam, idempotencyParam], {
    ...forRun,
    ...bodyErrors,
    ...idempotencyErrors,
  });
  return doc;
}
