/** The `trace` command line: parses arguments and dispatches to the command modules. */
import { Command, CommanderError } from "commander";
import { registerAnalyzeCommands } from "./analyze-commands.js";
import { registerCompareCommand, registerPoolCommand } from "./compare-command.js";
import { registerModelCommands } from "./model-commands.js";
import { registerRolloutCommands } from "./rollout-commands.js";
import { registerRunCommand } from "./run-command.js";
import { registerServeCommand } from "./serve-command.js";
import { registerDashboardCommand } from "./dashboard-command.js";
import { registerShowCommand } from "./show-command.js";
import { registerSynthesisCommands } from "./synthesis-commands.js";
import { registerTau2Commands } from "./tau2-commands.js";
import { registerToolSandboxCommands } from "./toolsandbox-commands.js";
import { registerWorkerCommands } from "./worker-commands.js";
import { escapeControlCharacters } from "../synthesis/validation/module-text.js";
import { TraceError } from "../spec/trace-error.js";

/** Builds the CLI program (exported for tests). */
function createProgram(): Command {
  const program = new Command("trace")
    .description("TRACE: capability-targeted agentic training")
    .version("0.1.0")
    .exitOverride()
    .showHelpAfterError()
    // A command's options come before its subcommand's name (`analyze` and `analyze aggregate` both have --runs).
    .enablePositionalOptions();
  registerTau2Commands(program);
  registerToolSandboxCommands(program);
  registerRolloutCommands(program);
  registerShowCommand(program);
  registerAnalyzeCommands(program);
  registerModelCommands(program);
  registerWorkerCommands(program);
  registerRunCommand(program);
  registerCompareCommand(program);
  registerPoolCommand(program);
  registerSynthesisCommands(program);
  registerServeCommand(program);
  registerDashboardCommand(program);
  return program;
}

/**
 * A Node file-system error on a path (ENOENT, ENOTDIR, EEXIST, EISDIR, EACCES, …): what an unusable path given on the
 * command line leads to where no check caught it first. Its message names the call and the path.
 */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  if (!(error instanceof Error)) return false;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) && typeof syscall === "string" && typeof path === "string";
}

/**
 * Whether an error prints as one line rather than with its stack: an error of the project (`TraceError`, whatever its
 * category: its message says what went wrong and where), or a file-system error on a path. Anything else is a fault.
 */
function isOneLineError(error: unknown): error is Error {
  return TraceError.isInstance(error) || isFileSystemError(error);
}

/** Runs the CLI; returns the process exit code. Project errors print one clear line, not a stack trace. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await createProgram().parseAsync([...argv]);
    // A command that finished but failed its check (e.g. `env check`) sets process.exitCode; keep it.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (isOneLineError(error)) {
      // Messages can carry text from a module or an endpoint: control characters are escaped so one error is one line.
      process.stderr.write(`trace: ${escapeControlCharacters(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}
