/**
 * The ticketing service as an MCP server on stdio (official TypeScript SDK), for `target.kind: "mcp"`. Besides the
 * agent's tools it has two for the harness: `reset` (a fresh state; the config's `state.resetTool`) and
 * `export_state` (read-only; hidden from the agent, read by `mcp-grader.ts`).
 * Run: `node --import tsx examples/ticketing/mcp-server.ts`. `TRACE_TICKETING_EXIT_AFTER_CALLS=N` makes it exit on the
 * N-th tool call, once per `TRACE_TICKETING_EXIT_MARKER` file when one is named (for tests of a server that dies mid-episode).
 */
import { existsSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { initialState, runServiceTool, ServiceError, TOOLS } from "./service.js";

let state = initialState();
let calls = 0;
const exitAfter = Number(process.env.TRACE_TICKETING_EXIT_AFTER_CALLS ?? "0");
const exitMarker = process.env.TRACE_TICKETING_EXIT_MARKER;

const server = new Server({ name: "ticketing", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    ...TOOLS.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters as never, annotations: { readOnlyHint: tool.kind === "read" } })),
    { name: "reset", description: "Restore the initial state (harness only).", inputSchema: { type: "object" as const, properties: {} } },
    { name: "export_state", description: "The whole state as JSON (harness only).", inputSchema: { type: "object" as const, properties: {} }, annotations: { readOnlyHint: true } },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request) => {
  calls += 1;
  if (exitAfter > 0 && calls >= exitAfter && (exitMarker === undefined || !existsSync(exitMarker))) {
    if (exitMarker !== undefined) writeFileSync(exitMarker, "exited");
    process.exit(3);
  }
  const { name, arguments: args = {} } = request.params;
  const text = (value: unknown) => ({ content: [{ type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value) }] });
  if (name === "reset") {
    state = initialState();
    return text("reset");
  }
  if (name === "export_state") return text(state);
  try {
    return text(runServiceTool(state, name, args));
  } catch (error) {
    if (error instanceof ServiceError) return { ...text(error.message), isError: true };
    throw error;
  }
});

await server.connect(new StdioServerTransport());
