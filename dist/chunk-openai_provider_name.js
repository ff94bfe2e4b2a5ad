import {
  attemptText
} from "./chunk-harness_text_attempts.js";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  toWire
} from "./chunk-harness_summary_prompt.js";
import {
  countCompletionTokens,
  countPromptTokens,
  countTokens,
  loadTokenizer,
  saysContextLength,
  tokenCount
} from "./chunk-harness_tokens.js";
import {
  cutText
} from "./chunk-harness_text.js";
import {
  isObject
} from "./chunk-harness_is_object.js";
import {
  MAX_TIMER_MS,
  ModelError,
  sleep
} from "./chunk-harness_errors.js";
import {
  messageOf
} from "./chunk-harness_message_of.js";

// openai/provider_name.ts
var HOSTS = [
  [
    "api.openai.com",
    "openai"
  ],
  [
    ".openai.azure.com",
    "azure.ai.openai"
  ],
  [
    "generativelanguage.googleapis.com",
    "gcp.gemini"
  ],
  [
    "api.anthropic.com",
    "anthropic"
  ],
  [
    "api.deepseek.com",
    "deepseek"
  ],
  [
    "api.groq.com",
    "groq"
  ],
  [
    "api.mistral.ai",
    "mistral_ai"
  ],
  [
    "api.x.ai",
    "x_ai"
  ],
  [
    "api.perplexity.ai",
    "perplexity"
  ]
];
var providerName = (function providerName(baseUrl) {
  let host = "";
  try {
    host = new URL(baseUrl).hostname;
  } catch {
  }
  return HOSTS.find(([suffix]) => host === suffix || host.endsWith(suffix))?.[1] ?? "openai";
});

// harness/watch_deadline.ts
var pending = /* @__PURE__ */ new Set();
var armed = null;
var watchDeadline = (function watchDeadline(ms, expire) {
  const deadline = {
    at: performance.now() + Math.max(0, ms),
    expire
  };
  pending.add(deadline);
  if (!armed || armed.signal.aborted || deadline.at < armed.at) arm(deadline.at);
  else armed.signal.addEventListener("abort", fire);
  return () => {
    pending.delete(deadline);
    if (pending.size === 0) armed?.signal.removeEventListener("abort", fire);
  };
});
var arm = (function arm(at) {
  armed?.signal.removeEventListener("abort", fire);
  const now = performance.now();
  const until = Math.min(at, now + MAX_TIMER_MS);
  const signal = AbortSignal.timeout(Math.max(0, Math.ceil(until - now)));
  signal.addEventListener("abort", fire);
  armed = {
    at: until,
    signal
  };
});
var fire = (function fire() {
  armed = null;
  const now = performance.now();
  const due = [];
  let next = Infinity;
  for (const d of pending) {
    if (d.at <= now) {
      pending.delete(d);
      due.push(d);
    } else if (d.at < next) next = d.at;
  }
  if (next < Infinity) arm(next);
  for (const d of due) d.expire();
});

// openai/reply_words.ts
var readable = (function readable(v) {
  return typeof v === "string" ? v : v === void 0 || v === null ? "" : JSON.stringify(v);
});
var contentText = (function contentText(content) {
  if (content === void 0 || content === null) return null;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return void 0;
  let text = null;
  for (const part of content) {
    if (!isObject(part) || typeof part["type"] !== "string") return void 0;
    if (part["type"] !== "text") continue;
    if (typeof part["text"] !== "string") return void 0;
    text = (text ?? "") + part["text"];
  }
  return text;
});
var unseenText = (function unseenText(m) {
  const reasoning = reasoningText(m);
  const content = m["content"];
  if (!Array.isArray(content)) return reasoning;
  let text = reasoning;
  for (const part of content) {
    if (isObject(part) && part["type"] !== "text") text += partWords(part);
  }
  return text;
});
var reasoningText = (function reasoningText(m) {
  return readable(m["reasoning_content"]) || readable(m["reasoning"]);
});
var partWords = (function partWords(part) {
  const thinking = part["thinking"];
  if (typeof thinking === "string") return thinking;
  if (!Array.isArray(thinking)) return JSON.stringify(part);
  let text = "";
  for (const p of thinking) {
    text += isObject(p) && typeof p["text"] === "string" ? p["text"] : readable(p);
  }
  return text;
});

// openai/openai_reply.ts
var malformed = (function malformed(url, redact) {
  return (what, lost = []) => new ModelError("malformed", redact(`Malformed reply from ${url}: ${what}`), void 0, lost);
});
var isReportedError = (function isReportedError(body) {
  const error = body["error"];
  const said = isObject(error) || Array.isArray(error) || typeof error === "string" && !!error;
  const choices = body["choices"];
  return said && !(Array.isArray(choices) && choices.length > 0);
});
var reported = (function reported(url, redact) {
  return (body) => {
    const error = body["error"];
    const text = isObject(error) && typeof error["message"] === "string" ? error["message"] : "";
    const said = text || (typeof error === "string" ? error : JSON.stringify(error));
    const message = redact(`Error reported by ${url}: ${cutText(said, 200)}`);
    return new ModelError("server", message, void 0, spentAsReported(body));
  };
});
var spentAsReported = (function spentAsReported(body) {
  const usage = isObject(body["usage"]) ? body["usage"] : {};
  const completion = tokenCount(usage["completion_tokens"]);
  const prompt = tokenCount(usage["prompt_tokens"]);
  if (completion === void 0 || prompt === void 0) return [];
  const reason = "the provider reported an error, and usage";
  return [
    {
      completion_tokens: completion,
      prompt_tokens: prompt,
      reason
    }
  ];
});
var roughTokens = (function roughTokens(chars, maxTokens) {
  return Math.min(Math.ceil(chars / 4), maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
});
var readableReplyTokens = (async function readableReplyTokens(body) {
  const choice = Array.isArray(body["choices"]) ? body["choices"][0] : void 0;
  const raw = isObject(choice) && isObject(choice["message"]) ? choice["message"] : {};
  const calls = Array.isArray(raw["tool_calls"]) ? raw["tool_calls"] : [];
  const text = contentText(raw["content"]);
  const words = text === void 0 ? readable(raw["content"]) + reasoningText(raw) : (text ?? "") + unseenText(raw);
  const message = {
    role: "assistant",
    content: words + readable(raw["refusal"]) || null,
    tool_calls: calls.map((c) => {
      const f = isObject(c) && isObject(c["function"]) ? c["function"] : {};
      return fn("", readable(f["name"]), readable(f["arguments"]));
    })
  };
  await loadTokenizer();
  return countCompletionTokens(message);
});
var parseReply = (function parseReply(text, request, check) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    const what = "body is not JSON";
    const lost = lostIfBegun(text, text.length, request.maxTokens, what);
    return Promise.reject(check.bad(`${what}: ${JSON.stringify(cutText(check.redact(text), 200))}`, lost));
  }
  return parseBody(body, request, check);
});
var lostIfBegun = (function lostIfBegun(head, chars, maxTokens, what) {
  if (!/^\s*\{/.test(head)) return [];
  return [
    {
      completion_tokens: roughTokens(chars, maxTokens),
      reason: lostReason(what)
    }
  ];
});
var lostReason = (function lostReason(what) {
  return `the reply was malformed: ${what}`;
});
var parseBody = (function parseBody(body, request, check) {
  if (!isObject(body)) return Promise.reject(check.bad("body is not a JSON object"));
  if (isReportedError(body)) return Promise.reject(check.reported(body));
  try {
    const reply = validReply(body, request);
    return reply instanceof Promise ? reply.catch((e) => asMalformed(e, body, check)) : Promise.resolve(reply);
  } catch (e) {
    return asMalformed(e, body, check);
  }
});
var asMalformed = (async function asMalformed(e, body, check) {
  if (!(e instanceof BadReply)) throw e;
  throw check.bad(e.what, [
    await lostOf(body, check.redact(e.what))
  ]);
});
var BadReply = class {
  what;
  constructor(what) {
    this.what = what;
  }
};
var lostOf = (async function lostOf(body, what) {
  const usage = isObject(body["usage"]) ? body["usage"] : {};
  const lost = {
    completion_tokens: tokenCount(usage["completion_tokens"]) ?? await readableReplyTokens(body),
    reason: lostReason(what)
  };
  const prompt = tokenCount(usage["prompt_tokens"]);
  if (prompt !== void 0) lost.prompt_tokens = prompt;
  return lost;
});
var validReply = (function validReply(body, request) {
  if (!Array.isArray(body["choices"]) || body["choices"].length === 0) {
    throw new BadReply("no choices");
  }
  const choice = body["choices"][0];
  if (!isObject(choice) || !isObject(choice["message"])) {
    throw new BadReply("choices[0] has no message");
  }
  const raw = choice["message"];
  const text = contentText(raw["content"]);
  if (text === void 0) {
    throw new BadReply("choices[0].message.content is not a string or text parts");
  }
  const refusal = typeof raw["refusal"] === "string" ? raw["refusal"] : "";
  const content = refusal ? (text ?? "") + refusal : text;
  const message = {
    role: "assistant",
    content
  };
  const calls = parseToolCalls(raw["tool_calls"]);
  if (calls.length > 0) message.tool_calls = calls;
  const stated = body["usage"] === void 0 || body["usage"] === null ? void 0 : parseUsage(body["usage"]);
  const given = typeof choice["finish_reason"] === "string" ? choice["finish_reason"] : void 0;
  const finishReason = refusal && (given === void 0 || given === "stop") ? "content_filter" : given ?? (message.tool_calls ? "tool_calls" : "stop");
  const model = typeof body["model"] === "string" ? body["model"] : void 0;
  if (stated) return replyOf(message, stated, finishReason, model);
  return countedUsage(request, message, unseenText(raw)).then((usage) => replyOf(message, usage, finishReason, model));
});
var replyOf = (function replyOf(message, usage, finishReason, model) {
  const reply = {
    message,
    usage,
    finishReason
  };
  if (model !== void 0) reply.model = model;
  return reply;
});
var parseToolCalls = (function parseToolCalls(raw) {
  if (raw === void 0 || raw === null) return [];
  if (!Array.isArray(raw)) throw new BadReply("choices[0].message.tool_calls is not an array");
  return raw.map((c, i) => {
    const at = `choices[0].message.tool_calls[${i}]`;
    if (!isObject(c)) throw new BadReply(`${at} is not an object`);
    if (c["id"] !== void 0 && c["id"] !== null && typeof c["id"] !== "string") {
      throw new BadReply(`${at}.id is not a string`);
    }
    const id = typeof c["id"] === "string" ? c["id"] : "";
    if (!isObject(c["function"])) throw new BadReply(`${at}.function is missing`);
    const { name, arguments: args } = c["function"];
    if (typeof name !== "string" || !name) throw new BadReply(`${at}.function.name is missing`);
    if (isObject(args)) return fn(id, name, JSON.stringify(args));
    if (typeof args !== "string") throw new BadReply(`${at}.function.arguments is not a string`);
    return fn(id, name, args);
  });
});
var countedUsage = (async function countedUsage(request, message, unseen) {
  await loadTokenizer();
  return {
    prompt_tokens: countPromptTokens(request.messages, request.tools),
    completion_tokens: countCompletionTokens(message) + (unseen ? countTokens(unseen) : 0)
  };
});
var parseUsage = (function parseUsage(raw) {
  if (!isObject(raw)) throw new BadReply("usage is not an object");
  for (const k of [
    "prompt_tokens",
    "completion_tokens"
  ]) {
    const n = raw[k];
    if (tokenCount(n) === void 0) {
      throw new BadReply(`usage.${k} is not a non-negative integer (got ${JSON.stringify(n)})`);
    }
  }
  const usage = {
    prompt_tokens: raw["prompt_tokens"],
    completion_tokens: raw["completion_tokens"]
  };
  const cached = cachedTokens(raw);
  if (cached !== void 0) usage.cached_prompt_tokens = cached;
  return usage;
});
var cachedTokens = (function cachedTokens(usage) {
  const details = usage["prompt_tokens_details"];
  const n = isObject(details) ? details["cached_tokens"] : usage["prompt_cache_hit_tokens"];
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : void 0;
});
var fn = (function fn(id, name, args) {
  return {
    id,
    type: "function",
    function: {
      name,
      arguments: args
    }
  };
});

// openai/sse_reader.ts
var BUFFER_BYTES = 16384;
var spare = [];
var MAX_SPARE = 8;
var readSseData = (async function readSseData(stream, onData, options) {
  const { signal } = options;
  signal.throwIfAborted();
  let byob;
  let plain;
  try {
    byob = stream.getReader({
      mode: "byob"
    });
  } catch {
    plain = stream.getReader();
  }
  const reader = byob ?? plain;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {
  });
  signal.addEventListener("abort", onAbort, {
    once: true
  });
  const lines = new SseLines(onData);
  const decoder = new TextDecoder();
  let buffer = byob ? new Uint8Array(spare.pop() ?? new ArrayBuffer(BUFFER_BYTES)) : void 0;
  const maxBytes = options.maxBytes ?? Infinity;
  let bytes = 0;
  try {
    for (; ; ) {
      let got;
      try {
        got = byob ? await byob.read(buffer) : await plain.read();
      } catch (e) {
        throw signal.aborted ? signal.reason : options.broke(e);
      }
      if (byob && got.value) buffer = new Uint8Array(got.value.buffer);
      if (signal.aborted) throw signal.reason;
      if (got.done) break;
      if ((bytes += got.value.byteLength) > maxBytes) {
        throw options.tooLarge?.(bytes) ?? new RangeError(`the body passed ${maxBytes} bytes`);
      }
      if (lines.push(decoder.decode(got.value, {
        stream: true
      }))) return;
    }
    lines.end(decoder.decode());
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {
    });
    if (buffer && !buffer.buffer.detached && buffer.buffer.byteLength === BUFFER_BYTES) {
      if (spare.length < MAX_SPARE) spare.push(buffer.buffer);
    }
  }
});
var SseLines = class {
  onData;
  #rest;
  #data;
  /** The last text ended in `\r`: a `\n` starting the next is the same line break. */
  #afterCr;
  #done;
  constructor(onData) {
    this.onData = onData;
    this.#rest = "";
    this.#data = null;
    this.#afterCr = false;
    this.#done = false;
  }
  /** Takes a piece of text; true once `onData` said it is done. */
  push(text) {
    let from = 0;
    if (this.#afterCr && text.charCodeAt(0) === 10) from = 1;
    this.#afterCr = false;
    const n = text.length;
    let lf = text.indexOf("\n", from);
    let cr = text.indexOf("\r", from);
    while (!this.#done) {
      if (lf >= 0 && lf < from) lf = text.indexOf("\n", from);
      if (cr >= 0 && cr < from) cr = text.indexOf("\r", from);
      const i = cr < 0 ? lf : lf < 0 ? cr : Math.min(lf, cr);
      if (i < 0) break;
      const piece = text.slice(from, i);
      this.#line(this.#rest ? this.#rest + piece : piece);
      this.#rest = "";
      from = i + 1;
      if (i === cr) {
        if (from === n) this.#afterCr = true;
        else if (text.charCodeAt(from) === 10) from++;
      }
    }
    if (!this.#done && from < n) this.#rest += text.slice(from);
    return this.#done;
  }
  /**
   * The body ended. An event whose lines all ended is dispatched without its
   * blank line (some servers omit the last), and so is a last `data:` line
   * without its line break when it is whole (`[DONE]`, or JSON that parses).
   * Any other last line was cut mid-event: that event is dropped, as the SSE
   * standard says, so the reader sees a stream that stopped early, not a
   * chunk of half a JSON text.
   */
  end(text) {
    if (this.push(text)) return;
    const last = this.#rest;
    this.#rest = "";
    if (last) {
      this.#line(last);
      if (last.startsWith("data:") && !whole(this.#data)) return void (this.#data = null);
    }
    if (this.#data !== null && !this.#done) this.#dispatch();
  }
  #line(line) {
    if (line === "") {
      if (this.#data !== null) this.#dispatch();
    } else if (line.startsWith("data:")) {
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      this.#data = this.#data === null ? value : `${this.#data}
${value}`;
    }
  }
  #dispatch() {
    const data = this.#data;
    this.#data = null;
    if (this.onData(data) === true) this.#done = true;
  }
};
var whole = (function whole(data) {
  if (data.trim() === "[DONE]") return true;
  try {
    const value = JSON.parse(data);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
});

// openai/openai_stream.ts
var StreamCutError = class extends Error {
  /** The body assembled from what arrived (its `finish_reason` null). */
  partial;
  /** Creates the error. */
  constructor(message, partial, options) {
    super(message, options);
    this.name = "StreamCutError";
    this.partial = partial;
  }
};
var overCap = (function overCap(options, out, bytes) {
  return withLostSoFar(options.bad(`the stream passed ${bytes} bytes (maxReplyBytes)`), options, out);
});
var withLostSoFar = (function withLostSoFar(e, options, out) {
  let chars = (out.content?.length ?? 0) + out.refusal.length + out.unseen.length;
  for (const c of out.calls.values()) chars += c.args.length + (c.name?.length ?? 0);
  const lost = {
    completion_tokens: roughTokens(chars, options.maxTokens),
    reason: e.message
  };
  return new ModelError(e.kind, e.message, e.status, [
    lost
  ]);
});
var Assembler = class {
  options;
  content;
  refusal;
  /** What the reply wrote and does not show, billed all the same (see `unseenText`). */
  unseen;
  calls;
  finish;
  usage;
  model;
  constructor(options) {
    this.options = options;
    this.content = null;
    this.refusal = "";
    this.unseen = "";
    this.calls = /* @__PURE__ */ new Map();
    this.finish = void 0;
    this.usage = void 0;
    this.model = void 0;
  }
  add(chunk) {
    const { bad, onText } = this.options;
    if (!isObject(chunk)) throw bad("a stream chunk is not a JSON object");
    if (isReportedError(chunk)) throw this.options.reported(chunk);
    if (typeof chunk["model"] === "string") this.model = chunk["model"];
    if (chunk["usage"] !== void 0 && chunk["usage"] !== null) this.usage = chunk["usage"];
    if (chunk["choices"] === void 0 || chunk["choices"] === null) return;
    if (!Array.isArray(chunk["choices"])) throw bad("a stream chunk's choices is not an array");
    const choice = chunk["choices"].find((c) => isObject(c) && (c["index"] ?? 0) === 0);
    if (!isObject(choice)) return;
    if (choice["finish_reason"] !== void 0 && choice["finish_reason"] !== null) {
      this.finish = choice["finish_reason"];
    }
    const delta = choice["delta"];
    if (delta === void 0 || delta === null) return;
    if (!isObject(delta)) throw bad("a stream chunk's delta is not an object");
    const text = contentText(delta["content"]);
    if (text === void 0) throw bad("a stream delta's content is not a string or text parts");
    if (text !== null) this.content = (this.content ?? "") + text;
    this.unseen += unseenText(delta);
    const refusal = typeof delta["refusal"] === "string" ? delta["refusal"] : "";
    if (refusal) this.refusal += refusal;
    const shown = (text ?? "") + refusal;
    if (onText && shown) {
      try {
        onText(shown);
      } catch {
      }
    }
    if (delta["tool_calls"] !== void 0 && delta["tool_calls"] !== null) {
      if (!Array.isArray(delta["tool_calls"])) {
        throw bad("a stream delta's tool_calls is not an array");
      }
      for (const t of delta["tool_calls"]) this.#addCall(t);
    }
  }
  #addCall(t) {
    const { bad } = this.options;
    if (!isObject(t)) throw bad("a streamed tool call is not an object");
    const index = typeof t["index"] === "number" ? t["index"] : this.calls.size;
    const parts = this.calls.get(index) ?? {
      args: ""
    };
    if (typeof t["id"] === "string" && t["id"]) parts.id = t["id"];
    if (typeof t["type"] === "string") parts.type = t["type"];
    const f = t["function"];
    if (isObject(f)) {
      if (typeof f["name"] === "string" && f["name"]) parts.name = (parts.name ?? "") + f["name"];
      if (typeof f["arguments"] === "string") parts.args += f["arguments"];
      else if (f["arguments"] !== void 0 && f["arguments"] !== null) {
        throw bad("a streamed tool call's arguments is not a string");
      }
    }
    this.calls.set(index, parts);
  }
  body() {
    const message = {
      role: "assistant",
      content: this.content
    };
    if (this.refusal) message["refusal"] = this.refusal;
    if (this.unseen) message["reasoning_content"] = this.unseen;
    if (this.calls.size) {
      message["tool_calls"] = [
        ...this.calls.entries()
      ].sort((a, b) => a[0] - b[0]).map(([, c]) => ({
        id: c.id,
        type: c.type ?? "function",
        function: {
          name: c.name,
          arguments: c.args
        }
      }));
    }
    const body = {
      choices: [
        {
          index: 0,
          message,
          finish_reason: this.finish ?? null
        }
      ]
    };
    if (this.usage !== void 0) body["usage"] = this.usage;
    if (this.model !== void 0) body["model"] = this.model;
    return body;
  }
};
var readChatStream = (async function readChatStream(stream, options) {
  const out = new Assembler(options);
  let done = false;
  let chunks = 0;
  const onData = (text) => {
    if (text.trim() === "[DONE]") return done = true;
    let chunk;
    try {
      chunk = JSON.parse(text);
    } catch {
      throw options.bad(`a stream chunk is not JSON: ${JSON.stringify(cutText(text, 200))}`);
    }
    out.add(chunk);
    chunks++;
    return false;
  };
  try {
    await readSseData(stream, onData, {
      signal: options.signal,
      maxBytes: options.maxBytes,
      tooLarge: (bytes) => overCap(options, out, bytes),
      broke: (e) => new StreamCutError(`the connection broke mid-reply: ${messageOf(e)}`, out.body(), {
        cause: e
      })
    });
  } catch (e) {
    const broken = e instanceof ModelError && (e.kind === "malformed" || e.kind === "server");
    throw broken && !e.lost.length && chunks > 0 ? withLostSoFar(e, options, out) : e;
  }
  if (out.finish === void 0) {
    const how = done ? "[DONE] came without a finish_reason" : "no finish_reason, usage or [DONE]";
    throw new StreamCutError(`the stream ended before the reply finished (${how})`, out.body());
  }
  return out.body();
});

// openai/openai_attempt.ts
var STATUS_TEXT = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
};
var attempt = (async function attempt(cfg, body, signal, request, streaming) {
  const ctrl = new AbortController();
  let timedOut = false;
  const forget = watchDeadline(cfg.timeoutMs, () => {
    timedOut = true;
    ctrl.abort(new DOMException(`timed out after ${cfg.timeoutMs} ms`, "TimeoutError"));
  });
  const onOuterAbort = () => ctrl.abort(signal.reason);
  signal.addEventListener("abort", onOuterAbort);
  let answer;
  try {
    answer = await fetchAnswer(cfg, body, ctrl.signal, request, streaming);
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    return await failure(cfg, e, timedOut);
  } finally {
    forget();
    signal.removeEventListener("abort", onOuterAbort);
  }
  if ("streamed" in answer) return parseBody(answer.streamed, request, cfg);
  const outcome = await interpret(cfg, answer, request);
  if (streaming && "message" in outcome) cfg.onPlain();
  return outcome;
});
var fetchAnswer = (async function fetchAnswer(cfg, body, signal, request, streaming) {
  const init = {
    method: "POST",
    headers: streaming ? cfg.streamHeaders : cfg.headers,
    body,
    signal
  };
  const sent = cfg.doFetch(cfg.url, init);
  const res = await (cfg.nativeFetch ? sent : race(sent, signal, (r) => void r.body?.cancel()));
  const { status, statusText } = res;
  const ok = status >= 200 && status < 300;
  const { bad, reported: reported2 } = cfg;
  const maxBytes = cfg.maxReplyBytes;
  if (streaming && ok && res.body && isEventStream(res.headers.get("content-type") ?? "")) {
    const streamed = await readChatStream(res.body, {
      onText: request.onText,
      signal,
      bad,
      reported: reported2,
      maxBytes,
      maxTokens: request.maxTokens
    });
    return {
      streamed
    };
  }
  const read = cappedText(res, maxBytes, bad, cfg.nativeFetch, ok ? request : null);
  const text = await (cfg.nativeFetch ? read : race(read, signal));
  return {
    status,
    statusText,
    text,
    retryAfter: ok ? null : res.headers.get("retry-after")
  };
});
var isEventStream = (function isEventStream(contentType) {
  return contentType.trimStart().slice(0, 17).toLowerCase() === "text/event-stream";
});
var cappedText = (function cappedText(res, maxBytes, bad, nativeFetch, billed) {
  const plain = nativeFetch && !res.headers.has("content-encoding");
  const length = plain ? res.headers.get("content-length") : null;
  const declared = length ? Number(length) : NaN;
  if (plain && declared <= maxBytes) return res.text();
  if (!res.body) return Promise.resolve("");
  return readCapped(res.body, declared, maxBytes, bad, billed);
});
var readCapped = (async function readCapped(body, declared, maxBytes, bad, billed) {
  const reader = body.getReader();
  const chunks = [];
  let bytes = 0;
  try {
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!value.byteLength) continue;
      bytes += value.byteLength;
      const passed = declared > maxBytes ? declared : bytes;
      if (passed > maxBytes) {
        const what = `the body passed ${passed} bytes (maxReplyBytes)`;
        const head = UTF8.decode((chunks[0] ?? value).subarray(0, 64));
        throw bad(what, billed ? lostIfBegun(head, passed, billed.maxTokens, what) : []);
      }
      chunks.push(value);
    }
  } catch (e) {
    reader.cancel().catch(() => {
    });
    throw e;
  }
  return chunks.length === 1 ? UTF8.decode(chunks[0]) : await new Blob(chunks).text();
});
var UTF8 = new TextDecoder();
var failure = (async function failure(cfg, e, timedOut) {
  if (e instanceof ModelError) throw e;
  if (!timedOut && !(e instanceof StreamCutError) && refused(e)) {
    throw new ModelError("network", `Nothing listens at ${cfg.url}: connection refused`);
  }
  if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
    throw new ModelError("network", `Cannot call ${cfg.url}: ${cfg.redact(messageOf(e))}`);
  }
  const detail = timedOut ? `timed out after ${cfg.timeoutMs} ms` : cfg.redact(messageOf(e));
  if (!(e instanceof StreamCutError)) {
    return {
      kind: "network",
      what: `Network error calling ${cfg.url}`,
      detail
    };
  }
  const lost = {
    completion_tokens: await readableReplyTokens(e.partial),
    reason: detail
  };
  const what = e.cause === void 0 ? `The stream from ${cfg.url} ended before the reply finished` : `Network error calling ${cfg.url}`;
  return {
    kind: "network",
    what,
    detail,
    lost
  };
});
var refused = (function refused(e) {
  for (let err = e, depth = 0; err instanceof Error && depth < 3; err = err.cause, depth++) {
    if (err instanceof Deno.errors.ConnectionRefused || /connection refused/i.test(err.message)) {
      return true;
    }
  }
  return false;
});
var interpret = (function interpret(cfg, answer, request) {
  const { status, statusText, retryAfter } = answer;
  if (status >= 200 && status < 300) {
    return parseReply(answer.text, request, cfg);
  }
  const text = cfg.redact(answer.text);
  const line = cfg.redact(`${status} ${statusText || STATUS_TEXT[status] || "Error"} from ${cfg.url}`);
  if (status === 401 || status === 403) {
    throw new ModelError("auth", `${line}: check LLM_API_KEY`, status);
  }
  if (status === 429 || status >= 500) {
    const kind2 = status === 429 ? "rate_limited" : "server";
    const detail = cutText(text, 200);
    const wait = retryAfterMs(retryAfter);
    return {
      kind: kind2,
      what: line,
      detail,
      status,
      retryAfterMs: wait
    };
  }
  const kind = status === 400 && saysContextLength(text) ? "context_length" : "bad_request";
  throw new ModelError(kind, `${line}: ${errorMessage(text)}`, status);
});
var race = (function race(p, signal, onLate) {
  return new Promise((resolve, reject) => {
    let done = false;
    const onAbort = () => {
      done = true;
      reject(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, {
      once: true
    });
    p.then((v) => {
      signal.removeEventListener("abort", onAbort);
      if (done) onLate?.(v);
      else resolve(v);
    }, (e) => {
      signal.removeEventListener("abort", onAbort);
      if (!done) reject(e);
    });
  });
});
var retryAfterMs = (function retryAfterMs(header) {
  if (header === null || header.trim() === "") return void 0;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1e3);
  const date = Date.parse(header);
  return Number.isNaN(date) ? void 0 : Math.max(0, date - Date.now());
});
var errorMessage = (function errorMessage(text) {
  try {
    const body = JSON.parse(text);
    const m = body?.error?.message ?? body?.error ?? body?.message;
    if (typeof m === "string" && m) return m;
  } catch {
  }
  return cutText(text, 200);
});

// openai/openai_model.ts
var atLeastOne = (function atLeastOne(name, value) {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`createOpenAIModel: ${name} must be an integer of at least 1, got ${value}`);
  }
  return value;
});
var nonNegative = (function nonNegative(name, value, integer) {
  if (!Number.isFinite(value) || value < 0 || integer && !Number.isInteger(value)) {
    throw new RangeError(`createOpenAIModel: ${name} must be a non-negative ${integer ? "integer" : "number"}, got ${value}`);
  }
  return value;
});
var redactor = (function redactor(options) {
  const secrets = /* @__PURE__ */ new Set();
  const add = (v) => {
    if (typeof v !== "string" || v.trim() === "") return;
    secrets.add(v);
    const token = schemeToken(v);
    if (token) secrets.add(token);
  };
  add(options.apiKey);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/auth|key|token|secret|cookie|session|password/i.test(name)) add(value);
  }
  const sorted = [
    ...secrets
  ].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return (text) => text;
  return (text) => sorted.reduce((t, secret) => t.split(secret).join("[redacted]"), text);
});
var schemeToken = (function schemeToken(value) {
  const v = value.trimStart();
  const scheme = SCHEMES.find((s) => v.slice(0, s.length).toLowerCase() === s);
  if (scheme === void 0) return void 0;
  const rest = v.slice(scheme.length);
  const token = rest.trimStart();
  if (token === rest || token === "") return void 0;
  for (let i = 0; i < token.length; i++) {
    if (token[i].trim() === "") return token.slice(0, i);
  }
  return token;
});
var SCHEMES = [
  "bearer",
  "basic",
  "token"
];
var responseFormat = (function responseFormat(output) {
  return {
    type: "json_schema",
    json_schema: {
      name: output.name,
      schema: output.schema,
      strict: output.strict
    }
  };
});
var RUNTIME_FETCH = globalThis.fetch;
var chatPayload = (function chatPayload(model, request) {
  const payload = {
    model,
    messages: toWire(request.messages)
  };
  if (request.tools.length > 0) payload["tools"] = request.tools;
  if (request.maxTokens !== void 0) payload["max_tokens"] = request.maxTokens;
  if (request.output) payload["response_format"] = responseFormat(request.output);
  return payload;
});
var createOpenAIModel = (function createOpenAIModel(options) {
  if (typeof options.baseUrl !== "string" || !options.baseUrl) {
    throw new TypeError("createOpenAIModel: baseUrl must be a non-empty string");
  }
  if (typeof options.model !== "string" || !options.model) {
    throw new TypeError("createOpenAIModel: model must be a non-empty string");
  }
  const retry = {
    maxRetries: nonNegative("maxRetries", options.maxRetries ?? 3, true),
    baseMs: nonNegative("retryBaseMs", options.retryBaseMs ?? 250, false),
    maxRetryAfterMs: nonNegative("maxRetryAfterMs", options.maxRetryAfterMs ?? 3e4, false)
  };
  const headers = {
    "content-type": "application/json",
    accept: "application/json",
    ...options.apiKey ? {
      authorization: `Bearer ${options.apiKey}`
    } : {},
    ...options.headers
  };
  const client = {
    streams: options.stream ?? true
  };
  const url = `${withoutTrailingSlashes(options.baseUrl)}/chat/completions`;
  const redact = redactor(options);
  const cfg = {
    url,
    doFetch: options.fetch ?? globalThis.fetch,
    nativeFetch: (options.fetch ?? globalThis.fetch) === RUNTIME_FETCH,
    timeoutMs: nonNegative("timeoutMs", options.timeoutMs ?? 12e4, false),
    maxReplyBytes: atLeastOne("maxReplyBytes", options.maxReplyBytes ?? 32 * 2 ** 20),
    redact,
    bad: malformed(url, redact),
    reported: reported(url, redact),
    headers,
    streamHeaders: {
      ...headers,
      accept: "text/event-stream, application/json"
    },
    onPlain: () => client.streams = false
  };
  return {
    name: options.model,
    provider: options.provider ?? providerName(options.baseUrl),
    ...(options.structuredOutput ?? "json_schema") === "json_schema" ? {
      structuredOutput: "json_schema"
    } : {},
    complete: (request, signal) => complete(cfg, retry, client, options.model, request, signal)
  };
});
var complete = (async function complete(cfg, retry, client, model, request, signal) {
  signal.throwIfAborted();
  const payload = chatPayload(model, request);
  let plain, streamed;
  const bodyOf = (streaming) => streaming ? streamed ??= JSON.stringify({
    ...payload,
    stream: true,
    stream_options: {
      include_usage: true
    }
  }) : plain ??= JSON.stringify(payload);
  let fellBack = false;
  const lost = [];
  const text = attemptText(request);
  const watched = text.onText ? {
    ...request,
    onText: text.onText
  } : request;
  for (let n = 1; ; n++) {
    const streaming = client.streams;
    let outcome;
    if (n > 1) text.retrying();
    try {
      outcome = await attempt(cfg, bodyOf(streaming), signal, watched, streaming);
    } catch (e) {
      if (fellBack && !streaming) client.streams = true;
      if (!streaming || fellBack || !(e instanceof ModelError) || e.status !== 400) {
        throw withLost(e, lost);
      }
      fellBack = true;
      client.streams = false;
      n--;
      continue;
    }
    if ("message" in outcome) return lost.length ? {
      ...outcome,
      lost
    } : outcome;
    if (outcome.lost) lost.push(outcome.lost);
    if (n > retry.maxRetries) {
      const attempts = `${n} attempt${n === 1 ? "" : "s"}`;
      const message = `${outcome.what} after ${attempts}: ${outcome.detail}`;
      throw new ModelError(outcome.kind, message, outcome.status, lost);
    }
    const backoff = retry.baseMs * 2 ** (n - 1) * (0.5 + Math.random() / 2);
    await sleep(Math.min(outcome.retryAfterMs ?? backoff, retry.maxRetryAfterMs), signal);
  }
});
var withLost = (function withLost(e, lost) {
  if (!lost.length || !(e instanceof ModelError)) return e;
  return new ModelError(e.kind, e.message, e.status, [
    ...e.lost,
    ...lost
  ]);
});
var withoutTrailingSlashes = (function withoutTrailingSlashes(url) {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
});

export {
  createOpenAIModel
};
