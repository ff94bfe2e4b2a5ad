/**
 * The one reader of the environment (`LLM_*`, `REINS_*`, `HOST`, `PORT`)
 * and of how it combines with `reins.jsonc`: the environment wins over the
 * file, the same for the CLI, the server and the worker. A bad value is a
 * `TypeError` naming the variable.
 *
 * @module
 */
import type { Prices, PriceTable } from "../harness/cost.ts";
import type { RunLimits } from "../harness/limits.ts";
import { MAX_TIMER_MS } from "../harness/sleep.ts";

/** An environment as a plain record (`Deno.env.toObject()`). */
export type Env = Record<string, string | undefined>;

/** Everything reins reads from the environment, checked. */
export interface ReinsEnv {
  /** `LLM_BASE_URL`: an OpenAI-compatible endpoint. */
  baseUrl?: string;
  /** `LLM_MODEL`: the model name runs use unless their agent names one. */
  model?: string;
  /** `LLM_API_KEY`: the endpoint's key (`reins.jsonc`'s `apiKeyEnv` may name another variable). */
  apiKey?: string;
  /** `HOST` (default 127.0.0.1). */
  host: string;
  /** `PORT` (default 8000). */
  port: number;
  /** `REINS_TOKEN`: the bearer token of the HTTP API. */
  token?: string;
  /** Running on Deno Deploy (`DENO_DEPLOYMENT_ID` is set). */
  deploy: boolean;
  /** `REINS_KV_PATH` (default `.reins/runs.sqlite`; the project's KV on Deploy). */
  kvPath?: string;
  /** `REINS_WORKSPACES`: folder of the trees' folders (default `.reins/workspaces`, `/tmp/reins-workspaces` on Deploy). */
  workspaceRoot: string;
  /** `REINS_CONFIG`: the config file (default `reins.jsonc`, if any). */
  configPath?: string;
  /** `REINS_LEASE_MS`: lease time of an executing run. */
  leaseMs?: number | undefined;
  /** `REINS_SWEEP_MS`: period of the local sweep timer (0: none). */
  sweepMs?: number | undefined;
  /** `REINS_SCRIPTED`: "1" on, "0" off, absent: the process decides. */
  scripted?: boolean | undefined;
  /** `REINS_SCRIPTED_CHUNK_MS`: pause between the streamed chunks of scripted replies. */
  chunkMs?: number | undefined;
  /** `REINS_SCAN_MS`: duration of the demo's `scan_archive`. */
  scanMs?: number | undefined;
}

function msVar(env: Env, name: string, min: number, emptyOk = true): number | undefined {
  const raw = env[name];
  if (raw === undefined || (emptyOk && raw === "")) return undefined;
  const ms = Number(raw);
  // A timer over MAX_TIMER_MS fires at once: a sweep every 3e9 ms would run every 1 ms.
  if (raw.trim() === "" || !Number.isFinite(ms) || ms < min || ms > MAX_TIMER_MS) {
    throw new TypeError(
      `${name}: expected milliseconds from ${min} to ${MAX_TIMER_MS}, got "${raw}"`,
    );
  }
  return ms;
}

/**
 * Reads the environment (throws `TypeError` naming a bad variable).
 *
 * @example
 * ```ts
 * import { readEnv } from "./env.ts";
 * const env = readEnv({ PORT: "9000", LLM_MODEL: "gpt-x", REINS_LEASE_MS: "500" });
 * console.log(env.port, env.model, env.leaseMs); // 9000 gpt-x 500
 * ```
 */
export function readEnv(env: Env = Deno.env.toObject()): ReinsEnv {
  const deploy = Boolean(env["DENO_DEPLOYMENT_ID"]);
  // Empty is unset, as for the other variables (Number("") is 0: a random port).
  const port = env["PORT"] ? Number(env["PORT"]) : 8000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`PORT: expected a port number, got "${env["PORT"]}"`);
  }
  const scripted = env["REINS_SCRIPTED"];
  if (scripted !== undefined && scripted !== "0" && scripted !== "1") {
    throw new TypeError(`REINS_SCRIPTED: expected 1 or 0, got "${scripted}"`);
  }
  const out: ReinsEnv = {
    host: env["HOST"] || "127.0.0.1",
    port,
    deploy,
    workspaceRoot: env["REINS_WORKSPACES"] ||
      (deploy ? "/tmp/reins-workspaces" : ".reins/workspaces"),
    leaseMs: msVar(env, "REINS_LEASE_MS", 1),
    sweepMs: msVar(env, "REINS_SWEEP_MS", 0),
    chunkMs: msVar(env, "REINS_SCRIPTED_CHUNK_MS", 0, false),
    scanMs: msVar(env, "REINS_SCAN_MS", 0),
    ...(scripted === undefined ? {} : { scripted: scripted === "1" }),
  };
  const url = env["LLM_BASE_URL"];
  if (url && !/^https?:$/.test(URL.parse(url)?.protocol ?? "")) {
    throw new TypeError(`LLM_BASE_URL: expected an http(s) URL, got "${url}"`);
  }
  const text = {
    baseUrl: env["LLM_BASE_URL"],
    model: env["LLM_MODEL"],
    apiKey: env["LLM_API_KEY"],
    token: env["REINS_TOKEN"],
    kvPath: env["REINS_KV_PATH"],
    configPath: env["REINS_CONFIG"],
  };
  for (const [k, v] of Object.entries(text)) if (v) (out as unknown as Env)[k] = v;
  return out;
}

/** What a process runs models with: the environment over `reins.jsonc`. */
export interface ModelSettings {
  /** `LLM_BASE_URL`, else the file's `baseUrl`. */
  baseUrl?: string;
  /** The variable the file's `apiKeyEnv` names (default `LLM_API_KEY`). */
  apiKey?: string;
  /** `LLM_MODEL`, else the file's `model`. */
  model?: string;
  /** The file's `prices`. */
  prices?: Prices | PriceTable;
  /** The file's `limits`: defaults of new runs, under their agent's. */
  limits?: Partial<RunLimits>;
}

/** What {@link modelSettings} reads of `reins.jsonc` (its `ReinsConfig`). */
export interface ModelFileSettings {
  /** The endpoint's base URL. */
  baseUrl?: string;
  /** The model name. */
  model?: string;
  /** The variable holding the API key (default `LLM_API_KEY`). */
  apiKeyEnv?: string;
  /** Prices of the model's tokens. */
  prices?: ModelSettings["prices"];
  /** Default limits. */
  limits?: ModelSettings["limits"];
}

/**
 * The model settings of a process: `LLM_BASE_URL` over `baseUrl`,
 * `LLM_MODEL` over `model`, the key from the variable `apiKeyEnv` names
 * (default `LLM_API_KEY`); `prices` and `limits` from the file.
 *
 * @example
 * ```ts
 * import { modelSettings } from "./env.ts";
 * const s = modelSettings({ model: "from-file", baseUrl: "http://file/v1" }, { LLM_MODEL: "from-env" });
 * console.log(s.model, s.baseUrl); // from-env http://file/v1
 * ```
 */
export function modelSettings(
  file: ModelFileSettings,
  env: Env = Deno.env.toObject(),
): ModelSettings {
  const read = readEnv(env);
  const out: ModelSettings = {};
  const baseUrl = read.baseUrl ?? file.baseUrl;
  const model = read.model ?? file.model;
  const apiKey = env[file.apiKeyEnv ?? "LLM_API_KEY"] || undefined;
  if (baseUrl) out.baseUrl = baseUrl;
  if (model) out.model = model;
  if (apiKey) out.apiKey = apiKey;
  if (file.prices) out.prices = file.prices;
  if (file.limits) out.limits = file.limits;
  return out;
}
