/** `transfer_to_human_agents`: hands the conversation to a human; τ² only answers "Transfer successful". */
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";
import type { RetailState } from "./lookups.js";

/** Always succeeds; the episode logic (not this tool) ends the conversation. */
export const transferToHumanAgents: ToolDefinition<RetailState> = {
  name: "transfer_to_human_agents",
  kind: "generic",
  description: "Transfer the user to a human agent, with a summary of the user's issue.\n\nOnly transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and the available tools, you cannot solve the user's issue.",
  parameters: parametersSchema({
    summary: stringProperty("A summary of the user's issue.", "Summary"),
  }),
  run: () => "Transfer successful",
};
