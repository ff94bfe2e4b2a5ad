/**
 * The support desk's agents: `support` answers customers about their orders
 * (a read-only `lookup_order`, a `refund` that waits for a person's approval)
 * and asks its own child agent, `policy`, what the refund policy allows.
 *
 * @module
 */
import { z } from "zod";
import { defineAgent, defineTool } from "@reins/reins";

/** An order, as `data/orders.json` holds it. */
export interface Order {
  id: string;
  customer: string;
  item: string;
  totalUsd: number;
  status: "processing" | "shipped" | "delivered";
  carrier?: string;
  eta?: string;
  deliveredOn?: string;
}

const ORDERS = new URL("./data/orders.json", import.meta.url);
const POLICY = new URL("./data/policy.md", import.meta.url);

/** Where refunds are appended, one JSON line each: `SUPPORT_DESK_REFUNDS`, else `refunds.jsonl`. */
export function refundsPath(): string {
  return Deno.env.get("SUPPORT_DESK_REFUNDS") ?? "refunds.jsonl";
}

async function findOrder(id: string): Promise<Order | undefined> {
  const orders: Record<string, Order> = JSON.parse(
    await Deno.readTextFile(ORDERS),
  );
  return Object.hasOwn(orders, id) ? orders[id] : undefined;
}

/** Read-only: the model may call it freely, and a repeated call may be served from cache. */
export const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Looks an order up by its id: item, total, status, carrier and ETA.",
  parameters: z.object({
    orderId: z.string().regex(/^\d+$/).describe("The order's number"),
  }),
  readOnly: true,
  run: async ({ orderId }) => {
    const order = await findOrder(orderId);
    return order ? JSON.stringify(order) : `There is no order ${orderId}.`;
  },
});

/** A refund line of the refunds file. */
export interface RefundLine {
  key: string;
  orderId: string;
  amountUsd: number;
  reason: string;
  at: string;
}

/** The refunds written so far (an absent file is none). */
export async function readRefunds(path = refundsPath()): Promise<RefundLine[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/**
 * Writes: it waits for a person's approval, and carries the call's
 * idempotency key (stable across resumes), so a refund retried after a crash
 * is applied once. A payment API would take the key as its idempotency key.
 */
export const refund = defineTool({
  name: "refund",
  description: "Refunds an order (a person approves each refund first).",
  parameters: z.object({
    orderId: z.string().regex(/^\d+$/),
    amountUsd: z.number().positive(),
    reason: z.string().min(1),
  }),
  needsApproval: true,
  idempotent: true,
  run: async ({ orderId, amountUsd, reason }, ctx) => {
    const order = await findOrder(orderId);
    if (!order) return `There is no order ${orderId}: nothing refunded.`;
    if (amountUsd > order.totalUsd) {
      return `Refused: $${amountUsd} is more than order ${orderId}'s total of $${order.totalUsd}.`;
    }
    const key = ctx.idempotencyKey;
    if ((await readRefunds()).some((r) => r.key === key)) {
      return `Refund ${key} was already made: nothing more refunded.`;
    }
    const line: RefundLine = {
      key,
      orderId,
      amountUsd,
      reason,
      at: new Date().toISOString(),
    };
    await Deno.writeTextFile(refundsPath(), JSON.stringify(line) + "\n", {
      append: true,
    });
    return `Refunded $${amountUsd} for order ${orderId} (refund ${key}).`;
  },
});

/** Read-only: the policy text, or one section of it. */
export const readPolicy = defineTool({
  name: "read_policy",
  description: "Reads the store's policy: a section (`Refunds`, `Shipping`) or all of it.",
  parameters: z.object({ section: z.string().optional() }),
  readOnly: true,
  run: async ({ section }) => {
    const text = await Deno.readTextFile(POLICY);
    if (!section) return text;
    const part = text.split(/^# /m).find((s) => s.toLowerCase().startsWith(section.toLowerCase()));
    return part ? `# ${part.trim()}` : `There is no section "${section}".`;
  },
});

/** The child agent: researches the policy, in its own window and under the parent's budget. */
export const policy = defineAgent({
  name: "policy",
  description: "Asks the policy researcher what the store's policy says about a case.",
  instructions: "You research the store's policy. Read it, then answer the question in one " +
    "or two sentences, quoting the rule that applies.",
  tools: [readPolicy],
  limits: { maxTurns: 4, maxBudgetUsd: 0.02 },
});

/** The support desk. */
export const support = defineAgent({
  name: "support",
  description: "Answers customers' questions about their orders; refunds with approval.",
  instructions: "You are the support desk of a small shop. Look the order up before you " +
    "answer. Before a refund, ask `policy` whether it is allowed; refund only what it allows.",
  tools: [lookupOrder, refund],
  agents: [policy],
  limits: { maxTurns: 8, maxBudgetUsd: 0.10 },
  options: { dedupe: true },
});

/** Every agent this app serves. */
export const agents = [support];
