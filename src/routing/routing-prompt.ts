/** The routing prompt (`prompts/routing/routing.md`): the task's first user message and one block per option. */
import path from "node:path";
import { fillPromptFile, PROMPTS_ROOT } from "../prompts/prompt-file.js";
import type { Message } from "../spec/message.js";
import type { RoutingOption } from "./routing-option.js";

/** `prompts/routing/routing.md` of the package (beside `dist/`). */
const ROUTING_PROMPT_FILE = path.join(PROMPTS_ROOT, "routing", "routing.md");

function optionBlock(option: RoutingOption): string {
  if (option.capability === null) return `${option.label}. none of these: the task needs no specialist (answer with the general assistant).`;
  return `${option.label}. ${option.capability}: ${option.description}\n   Example of a solved task:\n${option.example
    .split("\n")
    .map((line) => `   | ${line}`)
    .join("\n")}`;
}

/** The routing prompt's text for a request and options (in order). */
function routingPromptText(request: string, options: readonly RoutingOption[]): string {
  return fillPromptFile(ROUTING_PROMPT_FILE, { REQUEST: request.trim(), OPTIONS: options.map(optionBlock).join("\n\n") }).trimEnd();
}

/** The routing prompt as the one user message of a chat request. */
export function routingMessages(request: string, options: readonly RoutingOption[]): Message[] {
  return [{ role: "user", content: routingPromptText(request, options) }];
}
