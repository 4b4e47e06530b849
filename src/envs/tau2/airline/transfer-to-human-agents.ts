/** `transfer_to_human_agents`: hands the conversation to a human; always answers `Transfer successful`. */
import type { AirlineTool } from "./airline-tool.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";

export const transferToHumanAgents: AirlineTool = {
  name: "transfer_to_human_agents",
  kind: "generic",
  description:
    "Transfer the user to a human agent, with a summary of the user's issue.\n\n" +
    "Only transfer if\n" +
    " -  the user explicitly asks for a human agent\n" +
    " -  given the policy and the available tools, you cannot solve the user's issue.",
  parameters: parametersSchema({
    summary: stringProperty("A summary of the user's issue.", "Summary"),
  }),
  run() {
    return "Transfer successful";
  },
};
