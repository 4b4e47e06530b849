/**
 * The run directory on the command line, named the same in every command: the argument `<run>` where a command
 * reads a run, the option `--run-dir <dir>` where a command writes one (`trace run`, `trace rollout`, `trace import`).
 */
import type { Command } from "commander";

/** The help text of the run directory, wherever it is asked for. */
export const RUN_DIRECTORY_HELP = "run directory (of trace run, trace rollout or trace import)";

/** Adds the `<run>` argument. */
export function addRunDirectoryArgument(command: Command): Command {
  return command.argument("<run>", RUN_DIRECTORY_HELP);
}

/** Adds `--run-dir <dir>` (required unless the command says what an unset one is). */
export function addRunDirectoryOption(command: Command, defaultHelp?: string): Command {
  return defaultHelp === undefined ? command.requiredOption("--run-dir <dir>", RUN_DIRECTORY_HELP) : command.option("--run-dir <dir>", `${RUN_DIRECTORY_HELP}; default: ${defaultHelp}`);
}
