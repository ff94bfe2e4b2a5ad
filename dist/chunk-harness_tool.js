import {
  PLAIN_NAME,
  adaptSchema,
  isPlainName
} from "./chunk-harness_schema_adapter.js";

// harness/tool.ts
var defineTool = (function defineTool(spec) {
  if (!spec || typeof spec !== "object") {
    throw new TypeError("defineTool(spec): spec must be an object");
  }
  if (typeof spec.name !== "string" || !isPlainName(spec.name)) {
    throw new TypeError(`defineTool: name must match ${PLAIN_NAME}, got ${JSON.stringify(spec.name)}`);
  }
  if (typeof spec.description !== "string") {
    throw new TypeError(`defineTool(${spec.name}): description must be a string`);
  }
  if (typeof spec.run !== "function") {
    throw new TypeError(`defineTool(${spec.name}): run must be a function`);
  }
  const { check, jsonSchema } = adaptSchema(spec.parameters, `defineTool(${spec.name})`);
  return {
    name: spec.name,
    description: spec.description,
    parameters: check,
    jsonSchema,
    readOnly: spec.readOnly ?? false,
    idempotent: spec.idempotent ?? spec.readOnly ?? false,
    needsApproval: spec.needsApproval ?? false,
    run: spec.run
  };
});
var toolDefinitions = (function toolDefinitions(tools) {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: t.jsonSchema
    }
  }));
});
var describeIssues = (function describeIssues(issues) {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`).join("; ");
});

export {
  defineTool,
  toolDefinitions,
  describeIssues
};
