/** The type of an airline tool: a `ToolDefinition` over one episode's airline database. */
import type { ToolDefinition } from "../../core/tool-kit.js";
import type { AirlineState } from "./database.js";

export type AirlineTool = ToolDefinition<AirlineState>;
