/**
 * `find_user_id_by_name_zip` and `find_user_id_by_email`: the first matching user id in the users table's order.
 * `toLowerCase` and Python's `str.lower` apply the same Unicode mapping (final sigma included).
 */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";
import type { RetailState } from "./lookups.js";

/** Case-insensitive first and last name, exact zip; `User not found` otherwise. */
export const findUserIdByNameZip: ToolDefinition<RetailState> = {
  name: "find_user_id_by_name_zip",
  kind: "read",
  description: "Find user id by first name, last name, and zip code. If the user is not found, the function\n\nwill return an error message. By default, find user id by email, and only call this function\nif the user is not found by email or cannot remember email.",
  parameters: parametersSchema({
    first_name: stringProperty("The first name of the customer, such as 'John'.", "First Name"),
    last_name: stringProperty("The last name of the customer, such as 'Doe'.", "Last Name"),
    zip: stringProperty("The zip code of the customer, such as '12345'.", "Zip"),
  }),
  run(state, args) {
    const firstName = (args.first_name as string).toLowerCase();
    const lastName = (args.last_name as string).toLowerCase();
    const zip = args.zip as string;
    for (const userId of state.ids("users")) {
      const user = state.get("users", userId);
      if (user === undefined) continue;
      if (
        user.name.first_name.toLowerCase() === firstName &&
        user.name.last_name.toLowerCase() === lastName &&
        user.address.zip === zip
      ) {
        return userId;
      }
    }
    throw new ToolError("User not found");
  },
};

/** Case-insensitive email; `User not found` otherwise. */
export const findUserIdByEmail: ToolDefinition<RetailState> = {
  name: "find_user_id_by_email",
  kind: "read",
  description: "Find user id by email. If the user is not found, the function will return an error message.",
  parameters: parametersSchema({
    email: stringProperty("The email of the user, such as 'something@example.com'.", "Email"),
  }),
  run(state, args) {
    const email = (args.email as string).toLowerCase();
    for (const userId of state.ids("users")) {
      const user = state.get("users", userId);
      if (user !== undefined && user.email.toLowerCase() === email) return userId;
    }
    throw new ToolError("User not found");
  },
};
