/** The 33 agent tools and `end_conversation`, by ToolSandbox's execution-facing names. */
import { CONTACT_TOOLS } from "./tools-contact.js";
import { MESSAGING_TOOLS } from "./tools-messaging.js";
import { RAPID_API_TOOLS } from "./tools-rapid-api.js";
import { REMINDER_TOOLS } from "./tools-reminder.js";
import { SETTING_TOOLS } from "./tools-setting.js";
import { UTILITY_TOOLS } from "./tools-utilities.js";
import type { ToolImplementation } from "./tool-runtime.js";

export const TOOL_IMPLEMENTATIONS: Readonly<Record<string, ToolImplementation>> = {
  ...CONTACT_TOOLS,
  ...SETTING_TOOLS,
  ...MESSAGING_TOOLS,
  ...RAPID_API_TOOLS,
  ...REMINDER_TOOLS,
  ...UTILITY_TOOLS,
};
