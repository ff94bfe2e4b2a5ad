// A minimal HTTP/1.1 client over one TCP connection, so a test knows which
// `deno serve --parallel` worker a request lands on (a connection is served
// by the worker that accepted it).
import assert from "node:assert/strict";
import { sleep } from "../harness/sleep.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A free loopback port (never 8787): listen on port 0, close, reuse the number. */
export function freePort(): number {
  for (;;) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    if (port !== 8787) return port;
  }
}

export interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * One HTTP/1.1 connection, so the test knows which worker a request lands on
 * (a connection is served by the worker that accepted it).
 */
export class Connection {
  #buf = new Uint8Array(0);
  private constructor(readonly conn: Deno.TcpConn, readonly token: string) {}

  static async open(port: number, token: string): Promise<Connection> {
    return new Connection(await Deno.connect({ hostname: "127.0.0.1", port }), token);
  }

  async #more(): Promise<void> {
    const chunk = new Uint8Array(16384);
    const n = await this.conn.read(chunk);
    if (n === null) throw new Error("connection closed by the server");
    const next = new Uint8Array(this.#buf.length + n);
    next.set(this.#buf);
    next.set(chunk.subarray(0, n), this.#buf.length);
    this.#buf = next;
  }

  async #take(n: number): Promise<Uint8Array> {
    while (this.#buf.length < n) await this.#more();
    const out = this.#buf.slice(0, n);
    this.#buf = this.#buf.slice(n);
    return out;
  }

  async #line(): Promise<string> {
    let at;
    while ((at = indexOf(this.#buf, encoder.encode("\r\n"))) < 0) await this.#more();
    const line = decoder.decode(await this.#take(at));
    await this.#take(2);
    return line;
  }

  /** Writes the request (`beforeWrite` runs just before) and reads the whole answer. */
  async request(
    method: string,
    path: string,
    body?: unknown,
    beforeWrite?: () => void,
  ): Promise<Answer> {
    const payload = body === undefined ? "" : JSON.stringify(body);
    const head = [
      `${method} ${path} HTTP/1.1`,
      "host: 127.0.0.1",
      `authorization: Bearer ${this.token}`,
      "connection: keep-alive",
      "content-type: application/json",
      `content-length: ${encoder.encode(payload).length}`,
    ].join("\r\n");
    beforeWrite?.();
    await this.conn.write(encoder.encode(`${head}\r\n\r\n${payload}`));
    const status = Number((await this.#line()).split(" ")[1]);
    const headers = new Map<string, string>();
    for (let line; (line = await this.#line()) !== "";) {
      const i = line.indexOf(":");
      headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
    }
    let text = "";
    if (headers.get("transfer-encoding")?.includes("chunked")) {
      for (;;) {
        const size = parseInt(await this.#line(), 16);
        if (size === 0) {
          await this.#line();
          break;
        }
        text += decoder.decode(await this.#take(size));
        await this.#take(2);
      }
    } else text = decoder.decode(await this.#take(Number(headers.get("content-length") ?? 0)));
    return { status, headers, body: text };
  }

  /** Sends a GET whose answer streams; resolves once its headers are read. */
  async openStream(path: string): Promise<Map<string, string>> {
    const head = [`GET ${path} HTTP/1.1`, "host: 127.0.0.1", `authorization: Bearer ${this.token}`];
    await this.conn.write(encoder.encode(`${head.join("\r\n")}\r\n\r\n`));
    assert.equal(Number((await this.#line()).split(" ")[1]), 200);
    const headers = new Map<string, string>();
    for (let line; (line = await this.#line()) !== "";) {
      const i = line.indexOf(":");
      headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
    }
    return headers;
  }

  /** Reads the stream until its text so far matches `pattern`; returns that text. */
  async readUntil(pattern: RegExp): Promise<string> {
    while (!pattern.test(decoder.decode(this.#buf))) await this.#more();
    return decoder.decode(this.#buf);
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }
}

/**
 * Polls `probe` until it returns a value that is not undefined. With
 * `retryErrors`, a probe that throws (a server not listening yet) is tried again.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
  { retryErrors = false, everyMs = 25 }: { retryErrors?: boolean; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = retryErrors ? await probe().catch(() => undefined) : await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A JSON answer of `app.request`: status, parsed body (null when empty) and headers. */
// deno-lint-ignore no-explicit-any
export type JsonAnswer = { status: number; body: any; headers: Headers };

/**
 * A JSON request helper over an app (`app.request`, no port): sends `body` as
 * JSON (a string as is) with the bearer `token` when given.
 */
export function jsonCaller(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  token?: string,
): (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<JsonAnswer> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return async (method, path, body, headers = {}) => {
    const res = await app.request(path, {
      method,
      headers: { "content-type": "application/json", ...auth, ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
}
