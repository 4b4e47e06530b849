/** `send_certificate`: adds a certificate (`certificate_3221322`, then `…323`, `…324`) to a user's payment methods. */
import { ToolError } from "../../core/tool-error.js";
import type { AirlineTool } from "./airline-tool.js";
import { getUser } from "./lookups.js";
import { integerProperty, parametersSchema, stringProperty } from "../tool-parameters.js";
import { pythonNumberString } from "./python-repr.js";

/** The ids τ²-bench gives new certificates, in order (at most three per user). */
const NEW_CERTIFICATE_IDS = ["certificate_3221322", "certificate_3221323", "certificate_3221324"] as const;

export const sendCertificate: AirlineTool = {
  name: "send_certificate",
  kind: "write",
  description: "Send a certificate to a user. Be careful!",
  parameters: parametersSchema({
    user_id: stringProperty("The ID of the user to book the reservation, such as 'sara_doe_496'.", "User Id"),
    amount: integerProperty("The amount of the certificate to send.", "Amount"),
  }),
  run(state, args) {
    const userId = args.user_id as string;
    const amount = args.amount as number;
    const user = getUser(state, userId);
    const id = NEW_CERTIFICATE_IDS.find((candidate) => !Object.hasOwn(user.payment_methods, candidate));
    if (id === undefined) throw new ToolError("Too many certificates");
    state.edit("users", userId).payment_methods[id] = { source: "certificate", id, amount };
    return `Certificate ${id} added to user ${userId} with amount ${pythonNumberString(amount)}.`;
  },
};
