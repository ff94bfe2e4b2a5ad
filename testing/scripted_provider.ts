/**
 * The scripted provider: an OpenAI-compatible chat-completions endpoint whose
 * "model" is a scenario script. It reports real token counts (o200k_base),
 * honours `max_tokens`, streams SSE, and injects latency and faults on request.
 * It keeps no state between requests.
 *
 * @module
 */
import type { AssistantMessage } from "../harness/messages.ts";
import {
  countCompletionTokens,
  countPromptTokens,
  loadTokenizer,
  truncateToTokens,
} from "../harness/tokens.ts";
import {
  say,
  type Scenario,
  type ScenarioInput,
  scenarioInput,
  SCENARIOS,
  type ScriptedReply,
} from "./scenarios.ts";
import { isSummaryRequest, scriptedSummary } from "./scripted_summarizer.ts";
import { latencyOf, pacedStream } from "./paced_stream.ts";
import { sleep } from "../harness/sleep.ts";
import { messageOf } from "../harness/message_of.ts";
import { TREE_SCENARIOS } from "./tree_scenarios.ts";
import { type Fault, faultResponse, FAULTS } from "./faults.ts";
import {
  type ChatRequest,
  type Completion,
  completionBody,
  errorResponse,
  parseChatRequest,
  streamEvents,
} from "./wire.ts";

/** What the provider tells `onRequest` and `faults` about a chat request. */
export interface ProviderRequestInfo {
  /** The model name, i.e. the scenario. */
  model: string;
  /** Number of assistant messages in the request. */
  turn: number;
  /** The request's `response_format`, when it asked for one (validated). */
  responseFormat?: {
    type: string;
    json_schema?: {
      name: string;
      schema?: Record<string, unknown> | undefined;
      strict?: boolean | null | undefined;
    };
  };
}

/** Every scenario the provider knows without options: the single-run ones and the tree ones. */
export const BUILT_IN_SCENARIOS: Readonly<Record<string, Scenario>> = Object.freeze({
  ...SCENARIOS,
  ...TREE_SCENARIOS,
});

/** Options of {@linkcode createScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** Delay before each chat reply, in ms (header `x-reins-latency-ms` or query `latency_ms` override it). */
  latencyMs?: number | undefined;
  /** Inject this fault into every chat request (header `x-reins-fault` overrides it). */
  fault?: Fault | undefined;
  /**
   * Decide a fault per chat request; `undefined` means none. The provider is
   * stateless: to fault only the first K requests, count in this closure.
   */
  faults?: ((request: ProviderRequestInfo) => Fault | undefined) | undefined;
  /** Called once per valid chat request (faulted ones included), e.g. to count model calls. */
  onRequest?: ((info: ProviderRequestInfo) => void) | undefined;
  /** Extra or replacement scenarios, merged over the built-in ones. */
  scenarios?: Record<string, Scenario> | undefined;
  /**
   * The model's context window in tokens: a longer prompt is refused as
   * OpenAI refuses it (400, code `context_length_exceeded`). Default: no limit.
   */
  contextTokens?: number | undefined;
  /**
   * Pause between two chunks of a streamed reply, in ms (default 0; the
   * provider's command and the server default to a visible pace).
   */
  chunkMs?: number | undefined;
}

/**
 * The pause between streamed chunks where a person watches (the provider's
 * command, the server, the CLI's scripted runs), in ms: slow enough to see the
 * words arrive. Tests and the bench use 0.
 */
export const SCRIPTED_CHUNK_MS = 20;

/** An in-process HTTP handler; pass `fetch` to `Deno.serve` or call it directly. */
export interface ScriptedProvider {
  /** Answers one HTTP request. */
  fetch(request: Request): Promise<Response>;
}

/** OpenAI's answer to a prompt over the window `window` (none: no limit), or null. */
async function overWindow(
  request: ChatRequest,
  window: number | undefined,
): Promise<Response | null> {
  if (window === undefined) return null;
  await loadTokenizer();
  const tokens = countPromptTokens(request.messages, request.tools);
  if (tokens <= window) return null;
  return errorResponse(
    400,
    `This model's maximum context length is ${window} tokens. However, your messages resulted ` +
      `in ${tokens} tokens. Please reduce the length of the messages.`,
    "invalid_request_error",
    "context_length_exceeded",
  );
}

/** Applies `max_tokens`: a reply over the cap loses its tool calls and is cut to the cap. */
function capReply(
  message: AssistantMessage,
  maxTokens: number | undefined,
): Completion["finishReason"] {
  const calls = message.tool_calls?.length ?? 0;
  if (maxTokens !== undefined && countCompletionTokens(message) > maxTokens) {
    message.content = truncateToTokens(message.content ?? "", maxTokens);
    delete message.tool_calls;
    return "length";
  }
  return calls > 0 ? "tool_calls" : "stop";
}

/** `GET /v1/models`: the scenarios, as models. */
function modelsResponse(names: readonly string[]): Response {
  const created = Math.floor(Date.now() / 1000);
  return Response.json({
    object: "list",
    data: names.map((id) => ({ id, object: "model", created, owned_by: "reins" })),
  });
}

/** A chat request that passed every check, with what it asks of the provider. */
interface AcceptedChat {
  request: ChatRequest;
  scenario: Scenario;
  latency: number;
  header: Fault | null;
}

/** Parses and checks a chat request: an `AcceptedChat`, or the 4xx response refusing it. */
async function acceptChat(
  req: Request,
  scenarios: Readonly<Record<string, Scenario>>,
  latencyMs: number | undefined,
): Promise<AcceptedChat | Response> {
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return errorResponse(
      400,
      "Request body is not valid JSON",
      "invalid_request_error",
      "invalid_json",
    );
  }
  const request = parseChatRequest(body);
  if ("error" in request) {
    return errorResponse(400, request.error, "invalid_request_error", "invalid_request");
  }
  const scenario = Object.hasOwn(scenarios, request.model) ? scenarios[request.model] : undefined;
  if (!scenario) {
    const known = Object.keys(scenarios).sort().join(", ");
    const message = `The model "${request.model}" does not exist. Known scenarios: ${known}`;
    return errorResponse(404, message, "invalid_request_error", "model_not_found");
  }
  const latency = latencyOf(req, latencyMs);
  if (typeof latency === "string") {
    return errorResponse(400, latency, "invalid_request_error", "invalid_latency");
  }
  const header = req.headers.get("x-reins-fault");
  if (header !== null && !(FAULTS as readonly string[]).includes(header)) {
    const message = `Unknown fault "${header}". Known faults: ${FAULTS.join(", ")}`;
    return errorResponse(400, message, "invalid_request_error", "invalid_fault");
  }
  return { request, scenario, latency, header: header as Fault | null };
}

/** The completion a scenario's reply makes, capped at `max_tokens`, with real token counts. */
async function scriptedCompletion(
  request: ChatRequest,
  scenario: Scenario,
  input: ScenarioInput,
): Promise<Completion> {
  await loadTokenizer(); // it reports real counts: built once per process, on first use
  // reins's summary call gets the deterministic summary, whatever the scenario.
  let reply: ScriptedReply;
  try {
    reply = isSummaryRequest(request.messages)
      ? say(scriptedSummary(request.messages.at(-1)?.content ?? ""))
      : scenario(input);
  } catch (e) {
    throw new ScenarioFailed(e);
  }
  const message: AssistantMessage = { role: "assistant", content: reply.content };
  if (reply.tool_calls?.length) {
    message.tool_calls = reply.tool_calls.map((t) => ({
      id: t.id,
      type: "function",
      function: { name: t.name, arguments: JSON.stringify(t.args) },
    }));
  }
  const finishReason = capReply(message, request.maxTokens);
  return {
    id: `chatcmpl-${request.model}-${input.turn}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    message,
    finishReason,
    usage: {
      prompt_tokens: countPromptTokens(request.messages, request.tools),
      completion_tokens: countCompletionTokens(message),
    },
  };
}

/** `POST /v1/chat/completions`: the scenario's reply, after the latency and fault asked for. */
async function chatResponse(
  req: Request,
  scenarios: Readonly<Record<string, Scenario>>,
  options: ScriptedProviderOptions,
): Promise<Response> {
  const accepted = await acceptChat(req, scenarios, options.latencyMs);
  if (accepted instanceof Response) return accepted;
  const { request, scenario, latency, header } = accepted;
  const input = scenarioInput(request.messages);
  const info: ProviderRequestInfo = { model: request.model, turn: input.turn };
  if (request.responseFormat) info.responseFormat = request.responseFormat;
  options.onRequest?.(info);
  // `req.signal` only when waiting: touching it makes Deno 2.9 warn about its
  // legacy abort after every response (nothing here relies on that abort).
  if (latency > 0) await sleep(latency, req.signal);
  const fault = header ?? options.faults?.(info) ?? options.fault;
  if (fault) return faultResponse(fault, req, request.model);
  const refused = await overWindow(request, options.contextTokens);
  if (refused) return refused;
  const completion = await scriptedCompletion(request, scenario, input);
  if (!request.stream) return Response.json(completionBody(completion));
  const events = streamEvents(completion, request.includeUsage);
  const chunkMs = options.chunkMs ?? 0;
  // Unpaced, the signal is not touched (see above): no warning for a provider served with 0.
  const body = chunkMs > 0 ? pacedStream(events, chunkMs, req.signal) : new Blob(events).stream();
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** A scenario (a script) that threw: the same request fails the same way, so no retry helps. */
class ScenarioFailed extends Error {
  constructor(cause: unknown) {
    super(`the scenario failed: ${messageOf(cause)}`, { cause });
  }
}

/**
 * A thrown error as a response: 400 for a scenario that threw (a 5xx would
 * be retried, and a script fails alike every time), 499 when the client went
 * away, else 500.
 */
function errorOf(err: unknown, req: Request): Response {
  if (err instanceof ScenarioFailed) {
    const message = `Scripted provider: ${err.message}`;
    return errorResponse(400, message, "invalid_request_error", "scenario_error");
  }
  if (req.signal.aborted) {
    return errorResponse(499, "The client closed the request", "client_closed", "aborted");
  }
  const message = messageOf(err);
  return errorResponse(
    500,
    `Scripted provider error: ${message}`,
    "server_error",
    "internal_error",
  );
}

/**
 * Creates the scripted provider. Routes: `POST /v1/chat/completions` (the
 * `model` names the scenario), `GET /v1/models`.
 *
 * @example
 * ```ts
 * import { createScriptedProvider } from "./scripted_provider.ts";
 * const provider = createScriptedProvider();
 * const res = await provider.fetch(new Request("http://reins/v1/chat/completions", {
 *   method: "POST",
 *   body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "hi" }] }),
 * }));
 * console.log((await res.json()).choices[0].message.content); // "hi"
 * ```
 */
export function createScriptedProvider(options: ScriptedProviderOptions = {}): ScriptedProvider {
  const scenarios: Record<string, Scenario> = { ...BUILT_IN_SCENARIOS, ...options.scenarios };
  // Two routes, matched by hand: no router, so a worker that plays scenarios loads no Hono.
  const route = (req: Request): Response | Promise<Response> => {
    const { pathname } = new URL(req.url);
    if ((req.method === "GET" || req.method === "HEAD") && pathname === "/v1/models") {
      return modelsResponse(Object.keys(scenarios).sort());
    }
    if (req.method === "POST" && pathname === "/v1/chat/completions") {
      return chatResponse(req, scenarios, options);
    }
    const message = `Unknown route ${req.method} ${pathname}`;
    return errorResponse(404, message, "invalid_request_error", "unknown_route");
  };
  return {
    async fetch(request) {
      try {
        return await route(request);
      } catch (err) {
        return errorOf(err, request);
      }
    },
  };
}

/**
 * A `fetch` that answers in process from a scripted provider: no port, no
 * network. Pass it to the OpenAI-compatible model client with any base URL
 * (e.g. `http://reins.local/v1`). Like `fetch`, it rejects with the signal's
 * reason when the request's signal aborts.
 *
 * @example
 * ```ts
 * import { scriptedFetch } from "./scripted_provider.ts";
 * const fetch = scriptedFetch({ latencyMs: 0 });
 * const res = await fetch("http://reins.local/v1/models");
 * console.log((await res.json()).data.length > 0); // true
 * ```
 */
export function scriptedFetch(options: ScriptedProviderOptions = {}): typeof fetch {
  const provider = createScriptedProvider(options);
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    request.signal.throwIfAborted();
    const response = await provider.fetch(request);
    if (request.signal.aborted) {
      await response.body?.cancel();
      throw request.signal.reason;
    }
    return response;
  };
}
