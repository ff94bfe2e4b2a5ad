/**
 * The faults the scripted provider injects on demand (header
 * `x-reins-fault`, or its options), and the answer each one gives.
 *
 * @module
 */
import { errorResponse } from "./wire.ts";

/** The faults the provider can inject (header `x-reins-fault`, or options). */
export const FAULTS = [
  "429",
  "429-no-retry-after",
  "500",
  "401",
  "malformed",
  "bad-shape",
] as const;

/**
 * A fault: `429` (with `Retry-After`, seconds from header `x-reins-retry-after`, default 1),
 * `429-no-retry-after`, `500`, `401`, `malformed` (200, body not JSON) or
 * `bad-shape` (200, JSON without `choices`).
 */
export type Fault = typeof FAULTS[number];

/**
 * The answer of `fault` to a chat request for `model` (a 429 reads its
 * `Retry-After` from header `x-reins-retry-after`).
 *
 * @example
 * ```ts
 * import { faultResponse } from "./faults.ts";
 * const req = new Request("http://reins/v1/chat/completions", { method: "POST" });
 * console.log(faultResponse("500", req, "plan").status); // 500
 * ```
 */
export function faultResponse(fault: Fault, req: Request, model: string): Response {
  switch (fault) {
    case "429":
    case "429-no-retry-after": {
      const headers: Record<string, string> = {};
      if (fault === "429") headers["retry-after"] = req.headers.get("x-reins-retry-after") ?? "1";
      return errorResponse(
        429,
        "Rate limit reached (injected fault)",
        "rate_limit_error",
        "rate_limit_exceeded",
        headers,
      );
    }
    case "500":
      return errorResponse(
        500,
        "The server had an error (injected fault)",
        "server_error",
        "internal_error",
      );
    case "401":
      return errorResponse(
        401,
        "Incorrect API key provided (injected fault)",
        "invalid_request_error",
        "invalid_api_key",
      );
    case "malformed":
      return new Response("{this is not json", { headers: { "content-type": "application/json" } });
    case "bad-shape":
      return Response.json({ id: "chatcmpl-bad-shape", object: "chat.completion", model });
  }
}
