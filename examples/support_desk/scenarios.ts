/**
 * The support desk's scripted model, for tests and for trying the app with no
 * LLM: `deno task provider` serves it as an OpenAI-compatible endpoint, whose
 * model `support-desk` plays `support` and its `policy` child, each by its
 * own script. A reply is a pure function of the request, so a resumed run
 * gets the replies an uninterrupted one would.
 *
 * @module
 */
import {
  callTool,
  say,
  type Scenario,
  type ScenarioInput,
  scriptAgents,
  taskOf,
} from "@reins/reins/testing";
import { agents, type Order } from "./agents.ts";

/** The model name of the scripted support desk. */
export const MODEL = "support-desk";

/** A task with this word makes the policy child read the policy until its turns run out. */
export const AUDIT_WORD = "audit";

function orderIdOf(task: string): string {
  return task.match(/\d+/)?.[0] ?? "0";
}

function parseOrder(text: string | undefined): Order | undefined {
  try {
    return JSON.parse(text ?? "");
  } catch {
    return undefined;
  }
}

function whereIs(order: Order): string {
  if (order.status === "shipped") {
    return `Order ${order.id} (${order.item}) has shipped with ${order.carrier}; ETA ${order.eta}.`;
  }
  if (order.status === "delivered") {
    return `Order ${order.id} (${order.item}) was delivered on ${order.deliveredOn}.`;
  }
  return `Order ${order.id} (${order.item}) is still being prepared.`;
}

/** Refund: look up, ask `policy`, refund the total if it allows, then say what happened. */
function refundFlow(
  { turn, toolTexts }: ScenarioInput,
  id: string,
): ReturnType<Scenario> {
  const order = parseOrder(toolTexts[0]);
  if (turn === 0) return callTool(turn, "lookup_order", { orderId: id });
  if (!order) return say(toolTexts[0] ?? `I could not find order ${id}.`);
  if (turn === 1) {
    const question = `May a ${order.status} order be refunded?`;
    return callTool(turn, "policy", { question });
  }
  if (turn === 2) {
    if (!/may be refunded in full/i.test(toolTexts[1] ?? "")) {
      return say(`I cannot refund order ${id}: ${toolTexts[1]}`);
    }
    return callTool(turn, "refund", {
      orderId: id,
      amountUsd: order.totalUsd,
      reason: "customer request",
    });
  }
  return say(toolTexts.at(-1) ?? "");
}

const support: Scenario = (input) => {
  const task = taskOf(input.messages);
  const id = orderIdOf(task);
  if (task.toLowerCase().includes(AUDIT_WORD)) {
    return input.turn === 0
      ? callTool(0, "policy", {
        question: `Check every rule against order ${id} (${AUDIT_WORD}).`,
      })
      : say(input.toolTexts.at(-1) ?? "");
  }
  if (/refund/i.test(task)) return refundFlow(input, id);
  if (input.turn === 0) return callTool(0, "lookup_order", { orderId: id });
  const order = parseOrder(input.toolTexts[0]);
  return say(order ? whereIs(order) : input.toolTexts[0] ?? "");
};

const policy: Scenario = ({ turn, toolTexts, messages }) => {
  const question = taskOf(messages);
  // An audit reads every section, one per turn, and never concludes: a long child to Stop.
  if (question.includes(AUDIT_WORD)) return callTool(turn, "read_policy", {});
  if (turn === 0) return callTool(0, "read_policy", { section: "Refunds" });
  const status = question.match(/a (\w+) order/)?.[1] ?? "";
  const rule = (toolTexts[0] ?? "").split("\n").find((l) => l.includes(status) && status);
  return say(
    rule ? rule.replace(/^-\s*/, "") : "The policy says nothing about this case.",
  );
};

/** The scenarios of the scripted provider: `support-desk` plays the whole tree. */
export const scenarios: Record<string, Scenario> = {
  [MODEL]: scriptAgents(agents, { support, policy }),
};
