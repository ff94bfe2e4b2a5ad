/**
 * Bearer-token auth for every route, compared in constant time.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { HttpError } from "./errors.ts";

const encoder = new TextEncoder();

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * Whether two secrets are equal, in time independent of where they differ
 * (both are hashed first, so their lengths do not leak either).
 *
 * @example
 * ```ts
 * import { safeEqual } from "./auth.ts";
 * console.log(await safeEqual("s3cret", "s3cret"), await safeEqual("s3cret", "guess")); // true false
 * ```
 */
export async function safeEqual(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([digest(a), digest(b)]);
  // Both are SHA-256 digests, so the lengths always match.
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the
 * header is missing or says something else.
 *
 * @example
 * ```ts
 * import { bearerToken } from "./auth.ts";
 * console.log(bearerToken("Bearer t0ken"), bearerToken("Basic eDp5")); // t0ken null
 * ```
 */
export function bearerToken(header: string | undefined): string | null {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "")?.[1] ?? null;
}

/**
 * Middleware requiring `Authorization: Bearer <token>` on every request when
 * `token` is set (a no-op otherwise); 401 with `WWW-Authenticate: Bearer`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bearerAuth } from "./auth.ts";
 * import { onError } from "./errors.ts";
 * const app = new Hono().use(bearerAuth("t0ken")).get("/", (c) => c.text("ok"));
 * app.onError(onError);
 * console.log((await app.request("/")).status); // 401
 * console.log((await app.request("/", { headers: { authorization: "Bearer t0ken" } })).status); // 200
 * ```
 */
export function bearerAuth(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (!token) return await next();
    const given = bearerToken(c.req.header("authorization"));
    if (given === null || !(await safeEqual(given, token))) {
      c.header("WWW-Authenticate", 'Bearer realm="reins"');
      throw new HttpError(
        401,
        "unauthorized",
        given !== null ? "the bearer token is wrong" : "a bearer token is required",
      );
    }
    await next();
  };
}
