/**
 * Markup for the inspector, escaped by Hono's `html` tag: the literal parts
 * are markup, every interpolated value is escaped unless it is already
 * {@link Html} (arrays are joined; null, undefined and booleans render
 * nothing). Transcripts are model and tool output, so nothing from a run may
 * ever become markup. Attribute values must be double-quoted.
 *
 * @module
 */
import { html as honoHtml, raw } from "hono/html";

/** Markup that is already safe (built by {@link html} or {@link raw}). */
export type Html = ReturnType<typeof raw>;

export { raw };

/**
 * The `html` template tag, synchronous: a Promise among the values is a bug here.
 *
 * @example
 * ```ts
 * import { html } from "./html.ts";
 * const task = "<img src=x onerror=alert(1)>";
 * console.log(String(html`<p title="${task}">${task}</p>`));
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const out = honoHtml(strings, ...values);
  if (out instanceof Promise) throw new TypeError("html: a Promise was interpolated");
  return out;
}

/**
 * Escapes text for HTML content and quoted attribute values.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "./html.ts";
 * console.log(escapeHtml(`<script>alert("x")</script>`));
 * // &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;
 * ```
 */
export function escapeHtml(text: string): string {
  return String(html`${text}`);
}
