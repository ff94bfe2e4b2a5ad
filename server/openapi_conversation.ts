/**
 * The OpenAPI parts of the conversation routes (`POST /runs/{id}/messages`,
 * `POST /runs/{id}/fork`), merged into the document by `openApiDocument`.
 *
 * @module
 */
import { z } from "zod";
import type { CallQuote } from "../harness/fork.ts";
import { RunViewResponse } from "./response_schemas.ts";
import { FollowUpSchema, ForkSchema } from "./routes_conversation.ts";
import { replayedHeader } from "./openapi_idempotency.ts";

type Json = Record<string, unknown>;

const usd = z.number().min(0);
const count = z.int().min(0);

/** The quote of a fork's next model call. */
export const QuoteResponse = z.object({
  turn: count.describe("The turn the call will be"),
  promptTokens: count.describe("Prompt tokens of the call, counted (o200k_base)"),
  promptUsd: usd,
  replyTokens: count.describe("Reply tokens reserved (max_tokens)"),
  replyUsd: usd.describe("What the reserved reply costs at most"),
  totalUsd: usd.describe("promptUsd + replyUsd: the call in full (a hard budget caps the reply)"),
  model: z.string(),
});

/** `POST /runs/:id/fork` (201): the fork's view and the quote of its next call. */
export const ForkCreatedResponse = RunViewResponse.extend({ quote: QuoteResponse });

/** `POST /runs/:id/fork` with `quoteOnly` (200): the quote, nothing created. */
export const ForkQuoteResponse = z.object({
  forkedFrom: z.object({ runId: z.string(), turn: count }),
  quote: QuoteResponse,
});

({} as CallQuote) satisfies z.infer<typeof QuoteResponse>;
({} as z.infer<typeof QuoteResponse>) satisfies CallQuote;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (s: Json) => ({ "application/json": { schema: s } });

/**
 * Adds the conversation routes to an OpenAPI document (`schema` converts a
 * zod schema the way the document does; `params` are the run id's and the
 * `Idempotency-Key`'s; `errors` are a run route's errors, 409 and 422 included).
 *
 * @example
 * ```ts
 * import { openApiDocument } from "./openapi.ts";
 * const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
 * console.log(Object.keys(paths["/runs/{id}/messages"])); // ["get", "post"]
 * ```
 */
export function addConversationRoutes(
  doc: { components: { schemas: Json }; paths: Record<string, Json> },
  schema: (s: z.ZodType, io?: "input" | "output") => Json,
  params: Json[],
  errors: Json,
): void {
  Object.assign(doc.components.schemas, {
    FollowUp: schema(FollowUpSchema),
    Fork: schema(ForkSchema),
    ForkCreated: schema(ForkCreatedResponse, "output"),
    ForkQuote: schema(ForkQuoteResponse, "output"),
  });
  doc.paths["/runs/{id}/messages"] = {
    ...doc.paths["/runs/{id}/messages"],
    post: {
      summary: "Send a follow-up to a stopped run; it answers in the same run",
      description: "Executed like a resume; the run's events go on from its last id. With " +
        "`Accept: text/event-stream` the answer is the run's event stream from its next event " +
        "(the `user_message`) on. Refused (409) while it runs, after a failure, or while a " +
        "call awaits a verdict. A replay (`Idempotent-Replayed: true`) is the first answer's " +
        "view, or the run's stream from the same event on.",
      parameters: params,
      requestBody: { required: true, content: json(ref("FollowUp")) },
      responses: {
        "202": {
          description: "Accepted; the run continues (its view, or its event stream)",
          headers: replayedHeader,
          content: { ...json(ref("Run")), "text/event-stream": { schema: { type: "string" } } },
        },
        ...errors,
      },
    },
  };
  doc.paths["/runs/{id}/fork"] = {
    post: {
      summary: "Fork the run at a turn: a new run, its next call quoted",
      description: "Read-only calls the fork repeats are served from the source's results " +
        "($0, traced `replayed`). `start: false` only creates and quotes it. A replay " +
        "(`Idempotent-Replayed: true`) is the first answer, quote included.",
      parameters: params,
      requestBody: { required: true, content: json(ref("Fork")) },
      responses: {
        "200": {
          description: "With `quoteOnly`: the quote, nothing created",
          headers: replayedHeader,
          content: json(ref("ForkQuote")),
        },
        "201": {
          description: "The fork and its quote",
          headers: replayedHeader,
          content: json(ref("ForkCreated")),
        },
        ...errors,
      },
    },
  };
}
