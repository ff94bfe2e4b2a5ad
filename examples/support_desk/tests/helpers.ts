/**
 * Test helpers of the support desk: the scripted provider in this process,
 * and the app's server as a child process (`deno run main.ts`), as Deno Deploy
 * or `deno task dev` would run it.
 *
 * @module
 */
import { createScriptedProvider } from "@reins/reins/testing";
import { MODEL, scenarios } from "../scenarios.ts";

const APP = new URL("..", import.meta.url);

/** The scripted OpenAI-compatible endpoint, listening on a free port. */
export interface Provider extends AsyncDisposable {
  /** Its base URL, as `LLM_BASE_URL` takes it. */
  readonly baseUrl: string;
}

/** Starts the scripted provider (`latencyMs` before each reply: time to Stop or kill). */
export function startProvider(latencyMs = 0): Provider {
  const provider = createScriptedProvider({ scenarios, latencyMs });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    provider.fetch,
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** What the servers of one test share: the KV file, the refunds file, the provider. */
export interface Site extends AsyncDisposable {
  readonly dir: string;
  readonly kvPath: string;
  readonly refunds: string;
  /** Starts a server of `entry` (default `main.ts`) on this site's KV. */
  serve(baseUrl: string, entry?: string): Promise<Server>;
}

/** A server process of the app. */
export interface Server extends AsyncDisposable {
  readonly url: string;
  readonly child: Deno.ChildProcess;
  /**
   * The HTTP client of requests to it: a new connection per request, so a
   * request never lands on a kept-alive connection the server is closing.
   */
  readonly client: Deno.HttpClient;
  /** Everything it printed so far. */
  output(): string;
  /** Sends SIGKILL and waits for the process to end. */
  kill(): Promise<void>;
  /** Sends SIGTERM (the hand-over) and waits for the process to end. */
  stop(): Promise<void>;
}

/** A temp folder with a KV file and a refunds file; servers started from it end with it. */
export async function openSite(): Promise<Site> {
  const dir = await Deno.makeTempDir({ prefix: "support_desk_" });
  const servers: Server[] = [];
  const site: Site = {
    dir,
    kvPath: `${dir}/runs.sqlite`,
    refunds: `${dir}/refunds.jsonl`,
    serve: async (baseUrl, entry = "main.ts") => {
      const server = await startServer(site, baseUrl, entry);
      servers.push(server);
      return server;
    },
    [Symbol.asyncDispose]: async () => {
      for (const s of servers) await s.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
  return site;
}

async function startServer(
  site: Site,
  baseUrl: string,
  entry: string,
): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--frozen", "--allow-all", entry],
    cwd: APP,
    env: {
      PORT: "0",
      LLM_BASE_URL: baseUrl,
      LLM_MODEL: MODEL,
      REINS_KV_PATH: site.kvPath,
      SUPPORT_DESK_REFUNDS: site.refunds,
      // A killed server's lease runs out soon, and the others sweep often.
      REINS_LEASE_MS: "800",
      REINS_SWEEP_MS: "200",
      NO_COLOR: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const { promise: listening, resolve, reject } = Promise.withResolvers<
    string
  >();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const url = text.match(/listening on (http:\/\/[^/\s]+)\//)?.[1];
      if (url) resolve(url);
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const ended = child.status.then((
    s,
  ) => (reject(new Error(`server exited ${s.code}:\n${text}`)), s));
  const url = await listening;
  let done = false;
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  const end = async (signal: Deno.Signal) => {
    if (done) return;
    done = true;
    client.close();
    try {
      child.kill(signal);
    } catch {
      // already ended
    }
    await ended;
    await drained;
  };
  return {
    url,
    child,
    client,
    output: () => text,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
    [Symbol.asyncDispose]: () => end("SIGTERM"),
  };
}

/** `fetch` of a JSON API route; throws with the body on an unexpected status. */
export async function api<T = Record<string, unknown>>(
  server: Server,
  path: string,
  body?: unknown,
  expect = body === undefined ? 200 : 202,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(server.url + path, {
      client: server.client,
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body), // null: no body, as undefined
    });
  } catch (e) {
    // The server's own words say why it did not answer (it crashed, it refused, ...).
    throw new Error(`${path}: ${e}\nserver output:\n${server.output()}`, { cause: e });
  }
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** A run, as `GET /runs/:id` shows it. */
export interface RunView {
  runId: string;
  status: string;
  interruption: { type: string; callId?: string; toolName?: string } | null;
  stopReason: string | null;
  output: string | null;
  agent?: string;
}

/** Polls `GET /runs/:id` until `done` holds (10 s at most). */
export async function waitRun(
  server: Server,
  runId: string,
  done: (run: RunView) => boolean,
): Promise<RunView> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await api<RunView>(server, `/runs/${runId}`);
    if (done(run)) return run;
    if (Date.now() > deadline) {
      throw new Error(`run ${runId} stuck: ${JSON.stringify(run)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `POST /runs { agent: "support", task }`: the new run's id. */
export async function startRun(server: Server, task: string): Promise<string> {
  const run = await api<RunView>(
    server,
    "/runs",
    { agent: "support", task },
    201,
  );
  return run.runId;
}

/** The trace events of a run over SSE, until `until` holds for one (which is included). */
export async function followEvents(
  server: Server,
  runId: string,
  until: (event: { type: string; [k: string]: unknown }) => boolean,
): Promise<{ type: string; [k: string]: unknown }[]> {
  // A run that never shows the event must fail the test, not hang it.
  const res = await fetch(`${server.url}/runs/${runId}/events`, {
    headers: { accept: "text/event-stream" },
    client: server.client,
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) {
    throw new Error(`events: ${res.status} ${await res.text()}`);
  }
  const events: { type: string; [k: string]: unknown }[] = [];
  let buffer = "";
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block.split("\n").filter((l) => l.startsWith("data:"));
        if (!data.length) continue;
        const event = JSON.parse(data.map((l) => l.slice(5).trim()).join("\n"));
        events.push(event);
        if (until(event)) return events;
      }
    }
  } finally {
    await reader.cancel();
  }
}

/** The lines of the refunds file (none when it does not exist). */
export async function refundLines(
  site: Site,
): Promise<{ key: string; orderId: string }[]> {
  try {
    const text = await Deno.readTextFile(site.refunds);
    return text.split("\n").filter((l) => l).map((l) => JSON.parse(l));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}
