import {
  messageOf
} from "./chunk-harness_message_of.js";

// harness/schema_adapter.ts
import { z } from "zod";
var adaptSchema = (function adaptSchema(schema, where) {
  if (!schema || typeof schema !== "object" && typeof schema !== "function") {
    throw new TypeError(`${where}: expected a zod 4 schema or a Standard JSON Schema`);
  }
  const known = adapted.get(schema);
  if (known) return known;
  const fresh = adaptFresh(schema, where);
  adapted.set(schema, fresh);
  adapted.set(fresh.check, fresh);
  return fresh;
});
var adapted = /* @__PURE__ */ new WeakMap();
var adaptFresh = (function adaptFresh(schema, where) {
  if ("_zod" in schema) return {
    check: zodCheck(schema),
    jsonSchema: zodJsonSchema(schema)
  };
  const standard = schema["~standard"];
  if (standard && typeof standard.jsonSchema?.input === "function") {
    return {
      check: standardCheck(standard),
      jsonSchema: standardJsonSchema(standard, where)
    };
  }
  if (standard?.vendor === "zod" || "_def" in schema) {
    throw new TypeError(`${where}: a zod 3 schema cannot give reins a JSON Schema; use zod 4 (npm:zod@4, or "zod/v4" from zod 3.25) or any Standard JSON Schema`);
  }
  if (typeof schema.safeParse === "function" && !standard) {
    throw new TypeError(`${where}: a schema without a JSON Schema; pass the tool's jsonSchema too`);
  }
  throw new TypeError(`${where}: expected a zod 4 schema or a Standard JSON Schema`);
});
var zodCheck = (function zodCheck(schema) {
  const s = schema;
  return {
    safeParse: (data) => z.safeParse(s, data, {
      jitless: true
    })
  };
});
var zodJsonSchema = (function zodJsonSchema(schema) {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema);
  return json;
});
var standardJsonSchema = (function standardJsonSchema(standard, where) {
  let json;
  try {
    json = standard.jsonSchema.input({
      target: "draft-2020-12"
    });
  } catch (e) {
    const why = messageOf(e);
    throw new TypeError(`${where}: the ${standard.vendor} schema gives no JSON Schema: ${why}`);
  }
  const { $schema: _drop, ...rest } = json;
  return rest;
});
var standardCheck = (function standardCheck(standard) {
  return {
    safeParse(data) {
      const result = standard.validate(data);
      if (result instanceof Promise) {
        const issues = [
          {
            path: [],
            message: "asynchronous schemas are not supported"
          }
        ];
        return {
          success: false,
          error: {
            issues
          }
        };
      }
      if (result.issues) return {
        success: false,
        error: {
          issues: result.issues.map(issueOf)
        }
      };
      return {
        success: true,
        data: result.value
      };
    }
  };
});
var issueOf = (function issueOf(issue) {
  const path = Array.from(issue.path ?? [], (p) => typeof p === "object" ? p.key : p);
  return {
    path,
    message: issue.message
  };
});

// harness/plain_name.ts
var PLAIN_NAME = "/^[a-zA-Z0-9_-]{1,64}$/";
var isPlainName = (function isPlainName(name, colon = false) {
  if (name.length < 1 || name.length > 64) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = c >= 48 && c <= 57 || c >= 65 && c <= 90 || c >= 97 && c <= 122 || c === 95 || c === 45 || colon && c === 58;
    if (!ok) return false;
  }
  return true;
});

export {
  adaptSchema,
  PLAIN_NAME,
  isPlainName
};
