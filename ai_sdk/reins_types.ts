/**
 * The reins types the public API of this folder mentions, re-exported so its
 * entry point documents them.
 *
 * @module
 */
export type { LostReply, Model, ModelReply, ModelRequest } from "../harness/model.ts";
export type * from "../harness/messages.ts";
export type { Prices } from "../harness/cost.ts";
