// @ts-self-types="../../ai_sdk/mod.ts"
import {
  attemptText,
  countCompletionTokens,
  countPromptTokens,
  loadTokenizer,
  raceSignal,
  saysContextLength,
  tokenCount
} from "../chunk-harness_limits.js";
import {
  ModelError,
  isObject,
  sleep
} from "../chunk-harness_errors.js";

// ai_sdk/ai_sdk_prompt.ts
function input(args) {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
function toPrompt(messages) {
  const prompt = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        prompt.push({
          role: "system",
          content: m.content
        });
        break;
      case "user":
        prompt.push({
          role: "user",
          content: [
            {
              type: "text",
              text: m.content
            }
          ]
        });
        break;
      case "assistant": {
        const content = [];
        if (m.content) content.push({
          type: "text",
          text: m.content
        });
        for (const c of m.tool_calls ?? []) {
          content.push({
            type: "tool-call",
            toolCallId: c.id,
            toolName: c.function.name,
            input: input(c.function.arguments)
          });
        }
        prompt.push({
          role: "assistant",
          content
        });
        break;
      }
      case "tool": {
        const part = {
          type: "tool-result",
          toolCallId: m.tool_call_id,
          toolName: m.name,
          output: {
            type: "text",
            value: m.content
          }
        };
        const last = prompt.at(-1);
        if (last?.role === "tool") last.content.push(part);
        else prompt.push({
          role: "tool",
          content: [
            part
          ]
        });
        break;
      }
      default:
        throw new TypeError(`toPrompt: unknown role ${JSON.stringify(m.role)}`);
    }
  }
  return prompt;
}
function toTools(tools) {
  return tools.map((t) => ({
    type: "function",
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters
  }));
}

// ai_sdk/ai_sdk_reply.ts
var FINISH = {
  "stop": "stop",
  "length": "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter"
};
function finishReason(reason, hasCalls) {
  const unified = isObject(reason) ? reason["unified"] : reason;
  if (typeof unified !== "string") return hasCalls ? "tool_calls" : "stop";
  return FINISH[unified] ?? unified.replaceAll("-", "_");
}
async function usageOf(usage, request, message) {
  const u = isObject(usage) ? usage : {};
  const input2 = isObject(u["inputTokens"]) ? u["inputTokens"] : {
    total: u["inputTokens"]
  };
  const output = isObject(u["outputTokens"]) ? u["outputTokens"] : {
    total: u["outputTokens"]
  };
  const read = tokenCount(input2["cacheRead"]) ?? tokenCount(u["cachedInputTokens"]);
  const write = tokenCount(input2["cacheWrite"]);
  const parts = [
    tokenCount(input2["noCache"]),
    read,
    write
  ];
  const summed = parts.every((n) => n !== void 0) ? parts.reduce((a, b) => a + b, 0) : void 0;
  const prompt = tokenCount(input2["total"]) ?? summed;
  const completion = tokenCount(output["total"]);
  if (prompt === void 0 || completion === void 0) await loadTokenizer();
  const result = {
    prompt_tokens: prompt ?? countPromptTokens(request.messages, request.tools),
    completion_tokens: completion ?? countCompletionTokens(message)
  };
  if (read) result.cached_prompt_tokens = read;
  if (write) result.cache_write_tokens = write;
  return result;
}
async function toReply(result, request, name) {
  const bad = (what) => new ModelError("malformed", `Malformed reply from ${name}: ${what}`);
  if (!isObject(result) || !Array.isArray(result.content)) throw bad("no content array");
  let text = "";
  const calls = [];
  result.content.forEach((part, i) => {
    if (!isObject(part)) throw bad(`content[${i}] is not an object`);
    if (part["type"] === "text" && typeof part["text"] === "string") text += part["text"];
    if (part["type"] === "tool-call" && part["providerExecuted"] !== true) {
      if (typeof part["toolName"] !== "string" || !part["toolName"]) {
        throw bad(`content[${i}].toolName is missing`);
      }
      const args = typeof part["input"] === "string" ? part["input"] : JSON.stringify(part["input"] ?? {});
      calls.push({
        id: typeof part["toolCallId"] === "string" ? part["toolCallId"] : "",
        type: "function",
        function: {
          name: part["toolName"],
          arguments: args
        }
      });
    }
  });
  const message = calls.length ? {
    role: "assistant",
    content: text || null,
    tool_calls: calls
  } : {
    role: "assistant",
    content: text
  };
  const reply = {
    message,
    usage: await usageOf(result.usage, request, message),
    finishReason: finishReason(result.finishReason, calls.length > 0)
  };
  if (typeof result.response?.modelId === "string") reply.model = result.response.modelId;
  return reply;
}

// ai_sdk/ai_sdk_stream.ts
async function readAiSdkStream(stream, signal, onText) {
  const result = {
    content: [],
    finishReason: void 0
  };
  const inputs = /* @__PURE__ */ new Map();
  const reader = stream.getReader();
  try {
    for (; ; ) {
      const { value: part, done } = await raceSignal(reader.read(), signal);
      if (done) break;
      if (isObject(part)) addPart(part, result, inputs, onText);
    }
  } finally {
    reader.cancel().catch(() => {
    });
  }
  return result;
}
function addPart(part, result, inputs, onText) {
  const content = result.content;
  switch (part["type"]) {
    case "text-delta": {
      if (typeof part["delta"] !== "string" || !part["delta"]) break;
      const last = content.at(-1);
      if (last?.["type"] === "text") last["text"] += part["delta"];
      else content.push({
        type: "text",
        text: part["delta"]
      });
      onText?.(part["delta"]);
      break;
    }
    case "tool-input-start": {
      const call = {
        type: "tool-call",
        toolCallId: part["id"],
        toolName: part["toolName"],
        input: "",
        providerExecuted: part["providerExecuted"]
      };
      inputs.set(String(part["id"]), call);
      content.push(call);
      break;
    }
    case "tool-input-delta": {
      const call = inputs.get(String(part["id"]));
      if (call && typeof part["delta"] === "string") call["input"] += part["delta"];
      break;
    }
    case "tool-call": {
      const call = inputs.get(String(part["toolCallId"]));
      if (call) Object.assign(call, part);
      else content.push({
        ...part
      });
      break;
    }
    case "response-metadata":
      if (typeof part["modelId"] === "string") result.response = {
        modelId: part["modelId"]
      };
      break;
    case "finish":
      result.finishReason = part["finishReason"];
      result.usage = part["usage"];
      break;
    case "error":
      throw part["error"];
  }
}

// ai_sdk/ai_sdk_model.ts
function kindOf(err) {
  const status = err.statusCode;
  if ((status === void 0 || status === 400 || status === 413) && (saysContextLength(err.responseBody) || saysContextLength(err.message))) return "context_length";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limited";
  if (status !== void 0 && status >= 500) return "server";
  if (status !== void 0) return "bad_request";
  return "network";
}
function checkArguments(languageModel, options) {
  if (!languageModel || typeof languageModel.doGenerate !== "function") {
    throw new TypeError("aiSdkModel: expected an AI SDK language model (with doGenerate)");
  }
  const version = languageModel.specificationVersion;
  if (version !== "v3" && version !== "v4") {
    throw new TypeError(`aiSdkModel: specification ${JSON.stringify(version)} is not supported (v3 or v4)`);
  }
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`aiSdkModel: maxRetries must be a non-negative integer, got ${maxRetries}`);
  }
  return {
    maxRetries,
    baseMs: options.retryBaseMs ?? 250
  };
}
function callOptions(options, request, signal) {
  const output = request.output;
  return {
    ...options.callOptions,
    prompt: toPrompt(request.messages),
    ...request.tools.length ? {
      tools: toTools(request.tools),
      toolChoice: {
        type: "auto"
      }
    } : {},
    ...request.maxTokens !== void 0 ? {
      maxOutputTokens: request.maxTokens
    } : {},
    ...output ? {
      responseFormat: {
        type: "json",
        schema: output.schema,
        name: output.name
      }
    } : {},
    abortSignal: signal
  };
}
function aiSdkModel(languageModel, options = {}) {
  const { maxRetries, baseMs } = checkArguments(languageModel, options);
  const name = options.name ?? languageModel.modelId;
  const label = `${languageModel.provider}/${languageModel.modelId}`;
  async function generate(request, signal, onText) {
    const call = callOptions(options, request, signal);
    const model = languageModel;
    if (!onText) return await model.doGenerate(call);
    const { stream } = await model.doStream(call);
    return await readAiSdkStream(stream, signal, onText);
  }
  return {
    name,
    // `anthropic.messages` is served by `anthropic` (gen_ai.provider.name).
    provider: languageModel.provider.split(".")[0],
    languageModel,
    prices: options.prices,
    // The provider holds the reply to `responseFormat`, or falls back itself (with a warning).
    structuredOutput: "json_schema",
    async complete(request, signal) {
      signal.throwIfAborted();
      const streams = typeof languageModel.doStream === "function" && request.onText;
      const text = attemptText(request);
      for (let n = 1; ; n++) {
        let result;
        if (n > 1) text.retrying();
        try {
          result = await generate(request, signal, streams ? text.onText : void 0);
        } catch (e) {
          if (signal.aborted) throw signal.reason;
          if (e instanceof ModelError) throw e;
          const err = typeof e === "object" && e !== null ? e : {};
          const message = err.message ?? String(e);
          if (err.isRetryable === true && n <= maxRetries) {
            await sleep(baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2), signal);
            continue;
          }
          const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
          throw new ModelError(kindOf(err), `${label} failed after ${attempts}: ${message}`, err.statusCode);
        }
        return await toReply(result, request, label);
      }
    }
  };
}
export {
  aiSdkModel
};
