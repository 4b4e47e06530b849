/** Runs `python -m trace_worker ARGS…` to completion with the worker's environment, streaming its output. */
import { spawn } from "node:child_process";
import { OutputTail } from "./output-tail.js";
import { repositoryRoot as ownRepositoryRoot, resolvePythonInterpreter, workerEnvironment, type PythonOptions } from "./python-environment.js";
import { WorkerCommandError } from "./worker-command-error.js";

export interface RunWorkerModuleOptions extends PythonOptions {
  /** Receives the command's output as it comes (default: written to this process's stdout / stderr). */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
}

/** Resolves when the command exits 0; throws WorkerCommandError (with its stderr tail) otherwise. */
export async function runWorkerModule(moduleArguments: readonly string[], options: RunWorkerModuleOptions = {}): Promise<void> {
  const root = options.repositoryRoot ?? ownRepositoryRoot;
  const python = resolvePythonInterpreter(options);
  const commandArguments = ["-m", "trace_worker", ...moduleArguments];
  const onOutput = options.onOutput ?? ((stream, text) => (stream === "stdout" ? process.stdout : process.stderr).write(text));
  const stderr = new OutputTail();
  const child = spawn(python, commandArguments, { cwd: root, env: workerEnvironment(root, options.env ?? process.env), stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.setEncoding("utf8").on("data", (text: string) => onOutput("stdout", text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr.append(text);
    onOutput("stderr", text);
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => {
      stderr.append(`${error.message}\n`);
      resolve({ code: null, signal: null });
    });
  });
  if (exit.code !== 0) throw new WorkerCommandError([python, ...commandArguments], exit.code, exit.signal, stderr.toString(40));
}
