/**
 * A loose validator for an MCP tool's arguments, built from its JSON schema.
 * The server validates fully; this catches what a model gets wrong most often
 * (not an object, a required field missing, a field of the wrong basic type)
 * early, with the same kind of message as a zod schema gives.
 *
 * @module
 */
import type { SchemaIssue, ToolSchema } from "./reins.ts";
import { isObject } from "../harness/is_object.ts";

/** Arguments of an MCP tool: a JSON object. */
export type McpArgs = Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function fits(value: unknown, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  if (!types.every((t) => typeof t === "string")) return true; // unusual schema: the server decides
  const actual = typeOf(value);
  return types.some((t) => t === actual || (t === "number" && actual === "integer"));
}

/**
 * A `ToolSchema` that accepts a JSON object whose `required` properties are
 * present and whose top-level properties have the basic `type` the schema
 * names. Anything finer (formats, enums, nesting) is left to the server.
 *
 * @example
 * ```ts
 * import { jsonSchemaArgs } from "./json_schema_args.ts";
 * const args = jsonSchemaArgs({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
 * console.log(args.safeParse({ path: "a.txt" }).success); // true
 * console.log(args.safeParse({}).success); // false
 * ```
 */
export function jsonSchemaArgs(schema: Record<string, unknown>): ToolSchema<McpArgs> {
  const required = Array.isArray(schema["required"])
    ? schema["required"].filter((k): k is string => typeof k === "string")
    : [];
  const properties = isObject(schema["properties"]) ? schema["properties"] : {};
  return {
    safeParse(data: unknown) {
      if (!isObject(data)) {
        const issues = [{ path: [], message: `expected an object, received ${typeOf(data)}` }];
        return { success: false, error: { issues } };
      }
      const issues: SchemaIssue[] = [];
      for (const key of required) {
        if (!(key in data)) issues.push({ path: [key], message: "required" });
      }
      for (const [key, value] of Object.entries(data)) {
        const property = properties[key];
        if (!isObject(property) || property["type"] === undefined || value === undefined) continue;
        if (!fits(value, property["type"])) {
          const expected = Array.isArray(property["type"])
            ? property["type"].join(" or ")
            : property["type"];
          issues.push({ path: [key], message: `expected ${expected}, received ${typeOf(value)}` });
        }
      }
      return issues.length ? { success: false, error: { issues } } : { success: true, data };
    },
  };
}
