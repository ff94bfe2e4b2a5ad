/**
 * Typed output: what a run's final answer must be (a zod schema), how the
 * model is asked for it (its JSON Schema), how an answer is checked, and the
 * words of a repair turn. The loop's side is in `output_turn.ts`.
 *
 * @module
 */
import { cutText } from "./text.ts";
import { isObject } from "./is_object.ts";
import { messageOf } from "./message_of.ts";
import { adaptSchema, type AnySchema, type ToolSchema } from "./schema_adapter.ts";

/**
 * The schema of a run's final answer: zod 4, or any Standard Schema that
 * gives a JSON Schema (as for tool parameters, see `schema_adapter.ts`). Its
 * value must be JSON data: a schema JSON Schema cannot express (dates,
 * transforms) is refused.
 */
export type OutputSchema<T = unknown> = AnySchema<T>;

/** A JSON Schema, as plain data. */
export type JsonSchema = Record<string, unknown>;

/**
 * How a model is asked for a typed answer: the OpenAI `response_format`
 * `json_schema` fields. `schema` is always an object schema (OpenAI requires
 * one): a schema whose root is not an object is wrapped as `{ value: … }`.
 */
export interface OutputFormat {
  /** The schema's name, as `response_format.json_schema.name` (`output`). */
  name: string;
  /** The JSON Schema of the answer (wrapped when its root is not an object). */
  schema: JsonSchema;
  /**
   * Every object closes `additionalProperties` and requires every property:
   * what OpenAI's strict mode accepts. False for other schemas (asked unstrict).
   */
  strict: boolean;
  /** The answer is `{ "value": <the schema's value> }` on the wire. */
  wrapped: boolean;
  /** The JSON Schema of the value itself (unwrapped): what the run stores. */
  valueSchema: JsonSchema;
}

/** One reason an answer does not pass: where (`line`, `items.0.name`, `(root)`) and what. */
export interface OutputIssue {
  /** Dotted path into the answer; `(root)` for the answer itself. */
  path: string;
  /** What is wrong, in words. */
  message: string;
}

/** Most issues kept per answer (the rest are counted in the last one). */
export const MAX_OUTPUT_ISSUES = 20;
/** Most characters of one issue's message. */
const MAX_ISSUE_CHARS = 300;

/**
 * The format to ask a model for, from an output schema. Throws a `TypeError`
 * for a schema JSON Schema cannot express (dates, transforms): the model
 * could not be told what to send, and the value could not be stored.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { outputFormat } from "./output.ts";
 * const f = outputFormat(z.object({ file: z.string(), line: z.number() }));
 * console.log(f.strict, f.wrapped, f.schema.required); // true false [ "file", "line" ]
 * ```
 */
export function outputFormat(schema: OutputSchema): OutputFormat {
  return adaptOutput(schema).format;
}

/** The check of an output schema and the format to ask for (see {@link outputFormat}). */
export function adaptOutput<T>(schema: OutputSchema<T>): {
  check: ToolSchema<T>;
  format: OutputFormat;
} {
  const where = "run(state, options): options.output";
  let adapted;
  try {
    adapted = adaptSchema(schema, where);
  } catch (e) {
    if (e instanceof TypeError) throw e;
    const why = messageOf(e);
    throw new TypeError(`${where} cannot be expressed as JSON Schema: ${why}`);
  }
  const json = adapted.jsonSchema;
  const wrapped = json["type"] !== "object";
  const asked = wrapped
    ? {
      type: "object",
      properties: { value: json },
      required: ["value"],
      additionalProperties: false,
    }
    : json;
  const format = {
    name: "output",
    schema: asked,
    strict: isStrict(asked),
    wrapped,
    valueSchema: json,
  };
  return { check: adapted.check, format };
}

/** Every object schema in `s` closes its properties and requires them all. */
function isStrict(s: unknown): boolean {
  if (Array.isArray(s)) return s.every(isStrict);
  if (typeof s !== "object" || s === null) return true;
  const o = s as Record<string, unknown>;
  if (o["type"] === "object" || o["properties"]) {
    const keys = Object.keys((o["properties"] ?? {}) as object);
    const required = Array.isArray(o["required"]) ? o["required"] : [];
    if (o["additionalProperties"] !== false || keys.some((k) => !required.includes(k))) {
      return false;
    }
  }
  return Object.values(o).every(isStrict);
}

/** An answer's verdict: its parsed value, or what is wrong with it. */
export type AnswerCheck<T> =
  | { ok: true; value: T }
  | { ok: false; issues: OutputIssue[] };

/**
 * Checks an answer's text against the schema. The text must be JSON (one
 * fenced ```` ```json ```` block around it is allowed: models do that); a
 * wrapped format's `{ "value": … }` is unwrapped, and a bare value is
 * accepted too.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { checkAnswer, outputFormat } from "./output.ts";
 * const schema = z.object({ file: z.string(), line: z.number() });
 * const format = outputFormat(schema);
 * console.log(checkAnswer('{"file":"a.log","line":"3"}', schema, format));
 * // { ok: false, issues: [ { path: "line", message: "Invalid input: expected number, received string" } ] }
 * ```
 */
export function checkAnswer<T>(
  text: string,
  schema: ToolSchema<T>,
  format: Pick<OutputFormat, "wrapped">,
): AnswerCheck<T> {
  let data: unknown;
  try {
    data = JSON.parse(unfenced(text));
  } catch (e) {
    const what = text.trim() === "" ? "the answer is empty" : (e as Error).message;
    return { ok: false, issues: [{ path: "(root)", message: `not JSON: ${what}` }] };
  }
  return checkValue(data, schema, format);
}

/** Checks an already parsed answer (a final-answer tool's arguments, say). */
export function checkValue<T>(
  data: unknown,
  schema: ToolSchema<T>,
  format: Pick<OutputFormat, "wrapped">,
): AnswerCheck<T> {
  const tries = format.wrapped && isValueWrapper(data) ? [data.value, data] : [data];
  let first: AnswerCheck<T> | null = null;
  for (const candidate of tries) {
    const parsed = schema.safeParse(candidate);
    if (parsed.success) return { ok: true, value: parsed.data };
    first ??= { ok: false, issues: toIssues(parsed.error.issues) };
  }
  return first!;
}

function isValueWrapper(data: unknown): data is { value: unknown } {
  return isObject(data) && Object.keys(data).length === 1 && "value" in data;
}

/** The text inside one surrounding ```` ``` ```` fence, else the text itself. */
function unfenced(text: string): string {
  const m = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return m?.[1] ?? text;
}

/** zod's issues as path + message, at most {@link MAX_OUTPUT_ISSUES}. */
function toIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): OutputIssue[] {
  const out = issues.slice(0, MAX_OUTPUT_ISSUES).map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: cutText(i.message, MAX_ISSUE_CHARS),
  }));
  const more = issues.length - out.length;
  const last = out.at(-1);
  if (more > 0 && last) last.message += ` (and ${more} more issues)`;
  return out;
}

/**
 * The words of a repair turn: every issue with its path, and the ask.
 *
 * @example
 * ```ts
 * import { repairText } from "./output.ts";
 * console.log(repairText([{ path: "line", message: "expected number, received string" }]));
 * ```
 */
export function repairText(issues: readonly OutputIssue[]): string {
  const lines = issues.map((i) => `- at ${i.path}: ${i.message}`);
  return `${REPAIR_PREFIX} ${issues.length === 1 ? "1 issue" : `${issues.length} issues`}:\n` +
    `${lines.join("\n")}\nAnswer again with only the corrected JSON value, no other text.`;
}

/** How every repair turn's text begins. */
export const REPAIR_PREFIX = "Your answer does not match the required JSON Schema;";
