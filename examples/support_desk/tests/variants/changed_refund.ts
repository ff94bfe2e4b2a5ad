// A newer release of the support desk whose `refund` takes other parameters.
import { z } from "zod";
import { defineAgent, defineTool } from "@reins/reins";
import { serve } from "@reins/reins/server";
import { lookupOrder, policy, support } from "../../agents.ts";

const refund = defineTool({
  name: "refund",
  description: "Refunds part of an order, in a currency.",
  parameters: z.object({
    orderId: z.string(),
    amount: z.number(),
    currency: z.string(),
  }),
  needsApproval: true,
  run: () => "Refunded.",
});

serve({
  agents: [
    defineAgent({ ...support, tools: [lookupOrder, refund], agents: [policy] }),
  ],
});
