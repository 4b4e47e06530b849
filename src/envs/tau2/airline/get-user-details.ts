/** `get_user_details`: one user (profile, payment methods, reservation ids) as τ²-bench dumps it. */
import type { AirlineTool } from "./airline-tool.js";
import { getUser } from "./lookups.js";
import { dumpUser } from "./model-dumps.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";

export const getUserDetails: AirlineTool = {
  name: "get_user_details",
  kind: "read",
  description: "Get the details of a user, including their reservations.",
  parameters: parametersSchema({
    user_id: stringProperty("The user ID, such as 'sara_doe_496'.", "User Id"),
  }),
  run(state, args) {
    return dumpUser(getUser(state, args.user_id as string));
  },
};
