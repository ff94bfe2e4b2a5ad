/**
 * The `reins.jsonc` configuration file, as the CLI reads it. The loader lives
 * in runtime/config.ts so the server reads the same file.
 *
 * @module
 */
export * from "../runtime/config.ts";
