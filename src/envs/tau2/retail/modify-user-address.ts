/** `modify_user_address`: replaces a user's default address. */
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema } from "../tool-parameters.js";
import { addressFromArguments, addressProperties } from "./address-arguments.js";
import { getUser, type RetailState } from "./lookups.js";
import { dumpUser } from "./model-dump.js";
import { userIdProperty } from "./record-id-properties.js";

/** `User not found` when absent; otherwise the user after the change. */
export const modifyUserAddress: ToolDefinition<RetailState> = {
  name: "modify_user_address",
  kind: "write",
  description: "Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
  parameters: parametersSchema({
    user_id: userIdProperty,
    ...addressProperties,
  }),
  run(state, args) {
    const userId = args.user_id as string;
    getUser(state, userId);
    const user = state.edit("users", userId);
    user.address = addressFromArguments(args);
    return dumpUser(user);
  },
};
