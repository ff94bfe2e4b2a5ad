// A newer release of the support desk: `support` gained a tool; `refund` is unchanged.
import { z } from "zod";
import { defineAgent, defineTool } from "@reins/reins";
import { serve } from "@reins/reins/server";
import { lookupOrder, policy, refund, support } from "../../agents.ts";

const escalate = defineTool({
  name: "escalate",
  description: "Hands the conversation to a person.",
  parameters: z.object({ note: z.string() }),
  run: ({ note }) => `Escalated: ${note}`,
});

serve({
  agents: [
    defineAgent({
      ...support,
      tools: [lookupOrder, refund, escalate],
      agents: [policy],
    }),
  ],
});
