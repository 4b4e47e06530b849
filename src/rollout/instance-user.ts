/** The scripted user of a capability module's instance. */
import type { ModuleInstance } from "../envs/modules/capability-module.js";
import { createScriptedUser } from "./scripted-user.js";
import type { SimulatedUser } from "./simulated-user.js";

/** The simulated user of an instance: the request, then each follow-up whenever the agent replies with text, then `###STOP###`. */
export function createInstanceUser(instance: ModuleInstance): SimulatedUser {
  return createScriptedUser([instance.request, ...instance.followUps]);
}
