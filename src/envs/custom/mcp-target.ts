/**
 * A Model Context Protocol server as a target (`target.kind: "mcp"`), through the official TypeScript SDK: its tools
 * are listed from the server (a tool annotated `readOnlyHint` is a read tool), each call goes to the server, and the
 * tasks and the grader come from the user (a tasks file; a grader module or an LLM judge). The result is a
 * `TargetModule`, so `createCustomEnvironment` runs it like any other target.
 *
 * State between episodes is the user's to provide, one of:
 * - `restart`: every episode starts its own server (stdio only) and stops it after grading: isolated, parallel.
 * - `{resetTool}`: one server; before each episode the reset tool is called; episodes run one at a time.
 * - `shared`: one server, no reset (tools without state, or state the tasks do not share); episodes run in parallel.
 * A server that dies or stops answering fails the episode (`TargetUnavailableError`, recorded as an error and redone
 * on the next run); the next episode starts the server again.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { TargetUnavailableError } from "./custom-environment.js";
import { checkTargetTools, TargetModuleError, type LoadedTargetModule } from "./load-target-module.js";
import type { GradeInput, GradeResult, TargetModule, TargetTask, TargetTool } from "./target-module.js";

/** How to reach the server: a command speaking MCP on stdio, or a streamable-HTTP URL. */
export type McpServer = { command: string; args?: string[]; env?: Record<string, string>; cwd?: string } | { url: string; headers?: Record<string, string> };

/** How episodes get a fresh state (see the module comment). */
export type McpStateReset = "restart" | "shared" | { resetTool: string; arguments?: Record<string, unknown> };

/** One episode's connection to the server. */
export interface McpSession {
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
}

/** Options of `createMcpTarget`. */
export interface McpTargetOptions {
  name: string;
  server: McpServer;
  tasks: TargetTask[];
  state: McpStateReset;
  policy?: string;
  /** Scores an episode; `state` is the episode's session (its `callTool` reaches the server). */
  grade(input: GradeInput<McpSession>): number | GradeResult | Promise<number | GradeResult>;
  /** Per-call timeout in seconds (default 60). */
  callTimeoutSeconds?: number;
  /** Server tools the agent is not offered (the grader can still call them, e.g. a state export). */
  hiddenTools?: ReadonlySet<string>;
}

function describeServer(server: McpServer): string {
  return "url" in server ? server.url : [server.command, ...(server.args ?? [])].join(" ");
}

/** One connection (one server process for stdio). */
class Connection implements McpSession {
  closed = false;
  private constructor(
    private readonly client: Client,
    private readonly target: string,
    private readonly timeoutMilliseconds: number,
  ) {}

  static async open(target: string, server: McpServer, timeoutMilliseconds: number): Promise<Connection> {
    const client = new Client({ name: "trace", version: "0.1.0" });
    const transport =
      "url" in server
        ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } })
        : new StdioClientTransport({ command: server.command, args: server.args ?? [], env: { ...getDefaultEnvironment(), ...(server.env ?? {}) }, ...(server.cwd === undefined ? {} : { cwd: server.cwd }), stderr: "ignore" });
    try {
      await client.connect(transport, { timeout: timeoutMilliseconds });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new TargetUnavailableError(target, `cannot start or reach the MCP server (${describeServer(server)}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const connection = new Connection(client, target, timeoutMilliseconds);
    client.onclose = () => {
      connection.closed = true;
    };
    return connection;
  }

  async listTools(): Promise<TargetTool[]> {
    const tools: TargetTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.timeoutMilliseconds });
      for (const tool of page.tools) {
        tools.push({ name: tool.name, description: tool.description ?? "", parameters: tool.inputSchema, kind: tool.annotations?.readOnlyHint === true ? "read" : "write" });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /** A tool's text; a tool error (`isError`) or a refusal by the server throws a plain Error (the agent sees it), a lost server `TargetUnavailableError`. */
  async callTool(name: string, args: Record<string, unknown>): Promise<unknown> {
    if (this.closed) throw new TargetUnavailableError(this.target, `the MCP server is gone (before calling ${name})`);
    let result;
    try {
      result = await this.client.callTool({ name, arguments: args }, undefined, { timeout: this.timeoutMilliseconds });
    } catch (error) {
      if (this.closed || (error instanceof McpError && (error.code === (ErrorCode.ConnectionClosed as number) || error.code === (ErrorCode.RequestTimeout as number)))) {
        this.closed = true;
        throw new TargetUnavailableError(this.target, `the MCP server stopped answering during ${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      throw error;
    }
    const text = toolText(result);
    if ((result as { isError?: unknown }).isError === true) throw new Error(text);
    return text;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.close().catch(() => undefined);
  }
}

/** A call result's content as text: text parts joined; structured content as JSON when there is no text. */
function toolText(result: Record<string, unknown>): string {
  const parts = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  const texts = parts.filter((part) => part.type === "text" && typeof part.text === "string").map((part) => part.text!);
  if (texts.length > 0) return texts.join("\n");
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return JSON.stringify(parts);
}

/** A first-in, first-out lock: `reset` mode runs one episode at a time on the one server. */
class EpisodeLock {
  private tail: Promise<void> = Promise.resolve();
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}

interface EpisodeState {
  session: Connection;
  release?: () => void;
  own: boolean;
}

/** Connects to the server, lists its tools and returns the target (tools checked like a module's). */
export async function createMcpTarget(options: McpTargetOptions): Promise<LoadedTargetModule & { close(): Promise<void> }> {
  const source = `${options.name} (MCP ${describeServer(options.server)})`;
  const timeout = (options.callTimeoutSeconds ?? 60) * 1000;
  if (options.state === "restart" && "url" in options.server) throw new TargetModuleError(source, "state", '"restart" needs a stdio server (a command); an HTTP server is reset with a resetTool');
  const first = await Connection.open(options.name, options.server, timeout);
  let tools: TargetTool[];
  try {
    tools = await first.listTools();
  } catch (error) {
    await first.close();
    throw new TargetModuleError(source, "tools", `listing the tools failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (tools.length === 0) {
    await first.close();
    throw new TargetModuleError(source, "tools", "the server lists no tools");
  }
  checkTargetTools(source, tools);
  const reset = typeof options.state === "object" ? options.state : undefined;
  if (reset !== undefined && !tools.some((tool) => tool.name === reset.resetTool)) {
    await first.close();
    throw new TargetModuleError(source, "state.resetTool", `the server has no tool ${JSON.stringify(reset.resetTool)} (tools: ${tools.map((tool) => tool.name).join(", ")})`);
  }
  let shared: Connection | undefined = options.state === "restart" ? undefined : first;
  if (options.state === "restart") await first.close();
  const lock = new EpisodeLock();
  const sharedConnection = async (): Promise<Connection> => {
    if (shared === undefined || shared.closed) shared = await Connection.open(options.name, options.server, timeout);
    return shared;
  };
  // The agent does not see the reset tool: it is the harness's.
  const agentTools = tools.filter((tool) => tool.name !== reset?.resetTool && !(options.hiddenTools?.has(tool.name) ?? false));
  const unknownHidden = [...(options.hiddenTools ?? [])].filter((name) => !tools.some((tool) => tool.name === name));
  if (unknownHidden.length > 0) {
    await first.close();
    throw new TargetModuleError(source, "hiddenTools", `the server has no tool ${unknownHidden.map((name) => JSON.stringify(name)).join(", ")}`);
  }

  const module: TargetModule<EpisodeState> = {
    name: options.name,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    tools: agentTools,
    tasks: options.tasks,
    async createState(): Promise<EpisodeState> {
      if (options.state === "restart") return { session: await Connection.open(options.name, options.server, timeout), own: true };
      if (options.state === "shared") return { session: await sharedConnection(), own: false };
      const release = await lock.acquire();
      try {
        const session = await sharedConnection();
        try {
          await session.callTool(reset!.resetTool, reset!.arguments ?? {});
        } catch (error) {
          if (TargetUnavailableError.isInstance(error)) throw error;
          throw new TargetUnavailableError(options.name, `the reset tool ${reset!.resetTool} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        return { session, release, own: false };
      } catch (error) {
        release();
        throw error;
      }
    },
    runTool: ({ name, arguments: args, state }) => state.session.callTool(name, args),
    grade: (input) => options.grade({ ...input, state: input.state.session }),
    async disposeState(state) {
      if (state.own) await state.session.close();
      state.release?.();
    },
  };
  return {
    module: module,
    tasks: options.tasks,
    async close() {
      await shared?.close();
    },
  };
}
