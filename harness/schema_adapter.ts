/**
 * One way to take a user's schema: a zod 4 schema, or any Standard Schema
 * (https://standardschema.dev) that can also give a JSON Schema (arktype,
 * valibot with its converter, zod 4 itself). What reins needs of it is a
 * synchronous check and the JSON Schema the model sees. A zod 3 schema gives
 * no JSON Schema: it is refused here with a `TypeError` that says so, instead
 * of failing deep inside a run.
 *
 * @module
 */
import { z } from "zod";
import { messageOf } from "./message_of.ts";

/** One validation problem, as zod reports it. */
export interface SchemaIssue {
  /** Where in the arguments the problem is (empty for the root). */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in words. */
  readonly message: string;
}

/** The part of a zod schema reins uses (any zod v4 schema fits). */
export interface ToolSchema<T> {
  /** Validates `data`, returning the typed value or the issues found; never throws. */
  safeParse(
    data: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/** The result of a Standard Schema's `validate`. */
export type StandardResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | {
    readonly issues: ReadonlyArray<
      {
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
      }
    >;
  };

/** A Standard Schema (v1) that can give a JSON Schema ("Standard JSON Schema"). */
export interface StandardJsonSchema<T> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The spec's version: 1. */
    readonly version: 1;
    /** The library that made the schema. */
    readonly vendor: string;
    /** Checks a value. */
    validate(value: unknown): StandardResult<T> | Promise<StandardResult<T>>;
    /** The JSON Schema of the accepted input. */
    readonly jsonSchema?: {
      input(options: { target: string }): Record<string, unknown>;
    };
    /** Types only (for inference). */
    readonly types?: { readonly input: unknown; readonly output: T };
  };
}

/** What a tool's parameters (or a typed output) may be: zod 4, or a Standard JSON Schema. */
export type AnySchema<T> = ToolSchema<T> | StandardJsonSchema<T>;

/** A schema reins can use: a synchronous check and its JSON Schema (no `$schema` key). */
export interface AdaptedSchema<T> {
  /** Validates without throwing. */
  readonly check: ToolSchema<T>;
  /** What the model sees. */
  readonly jsonSchema: Record<string, unknown>;
}

/**
 * Adapts a zod 4 schema or a Standard JSON Schema; `where` names the caller in errors.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { adaptSchema } from "./schema_adapter.ts";
 * const { check, jsonSchema } = adaptSchema(z.object({ n: z.number() }), "example");
 * console.log(jsonSchema.type, check.safeParse({ n: "x" }).success); // object false
 * ```
 */
export function adaptSchema<T>(schema: AnySchema<T>, where: string): AdaptedSchema<T> {
  if (!schema || (typeof schema !== "object" && typeof schema !== "function")) {
    throw new TypeError(`${where}: expected a zod 4 schema or a Standard JSON Schema`);
  }
  // Tools built per run (a server's) often share their schemas: convert each once.
  const known = adapted.get(schema);
  if (known) return known as AdaptedSchema<T>;
  const fresh = adaptFresh(schema, where);
  adapted.set(schema, fresh);
  // A defined tool's `parameters` is this check: a tool defined again from it
  // (`defineTool({ ...tool, description })`) takes the same schema.
  adapted.set(fresh.check, fresh);
  return fresh;
}

/** Each schema adapted so far (its JSON Schema is shared: read it, never change it). */
const adapted = new WeakMap<object, AdaptedSchema<unknown>>();

function adaptFresh<T>(schema: AnySchema<T>, where: string): AdaptedSchema<T> {
  if ("_zod" in schema) return { check: zodCheck(schema), jsonSchema: zodJsonSchema(schema) };
  const standard = (schema as StandardJsonSchema<T>)["~standard"];
  if (standard && typeof standard.jsonSchema?.input === "function") {
    return { check: standardCheck(standard), jsonSchema: standardJsonSchema(standard, where) };
  }
  if (standard?.vendor === "zod" || "_def" in schema) {
    throw new TypeError(
      `${where}: a zod 3 schema cannot give reins a JSON Schema; use zod 4 ` +
        `(npm:zod@4, or "zod/v4" from zod 3.25) or any Standard JSON Schema`,
    );
  }
  if (typeof (schema as ToolSchema<T>).safeParse === "function" && !standard) {
    throw new TypeError(`${where}: a schema without a JSON Schema; pass the tool's jsonSchema too`);
  }
  throw new TypeError(`${where}: expected a zod 4 schema or a Standard JSON Schema`);
}

function zodCheck<T>(schema: object): ToolSchema<T> {
  const s = schema as z.ZodType<T>;
  // Interpreted (jitless): zod otherwise compiles a parser for each schema on its
  // first parse (0.3-0.9 ms of a fresh process's first tool call, and memory kept per
  // schema); a call parses its arguments once. A function, so zod/mini's schemas
  // (no safeParse method) are checked the same way.
  return { safeParse: (data) => z.safeParse(s, data, { jitless: true }) as never };
}

function zodJsonSchema(schema: object): Record<string, unknown> {
  // deno-lint-ignore no-explicit-any
  const { $schema: _drop, ...json } = z.toJSONSchema(schema as any) as Record<string, unknown>;
  return json;
}

function standardJsonSchema(
  standard: StandardJsonSchema<unknown>["~standard"],
  where: string,
): Record<string, unknown> {
  let json: Record<string, unknown>;
  try {
    json = standard.jsonSchema!.input({ target: "draft-2020-12" });
  } catch (e) {
    const why = messageOf(e);
    throw new TypeError(`${where}: the ${standard.vendor} schema gives no JSON Schema: ${why}`);
  }
  const { $schema: _drop, ...rest } = json;
  return rest;
}

function standardCheck<T>(standard: StandardJsonSchema<T>["~standard"]): ToolSchema<T> {
  return {
    safeParse(data) {
      const result = standard.validate(data);
      if (result instanceof Promise) {
        const issues = [{ path: [], message: "asynchronous schemas are not supported" }];
        return { success: false, error: { issues } };
      }
      if (result.issues) return { success: false, error: { issues: result.issues.map(issueOf) } };
      return { success: true, data: result.value };
    },
  };
}

function issueOf(
  issue: { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> },
): SchemaIssue {
  const path = Array.from(issue.path ?? [], (p) => typeof p === "object" ? p.key : p);
  return { path, message: issue.message };
}
