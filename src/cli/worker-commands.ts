/** `trace worker serve --model DIR`: the Python worker in the foreground, its output echoed, stopped on SIGINT / SIGTERM. */
import type { Command } from "commander";
import { WorkerCommandError } from "../worker/worker-command-error.js";
import { startWorker } from "../worker/worker-process.js";
import { integerOption } from "./integer-option.js";

/** The worker's own default port (worker/PROTOCOL.md). */
const DEFAULT_WORKER_PORT = 8765;

interface ServeOptions {
  model: string;
  host: string;
  port: number;
  apiKey?: string;
  servedModelName?: string;
  python?: string;
  gpus: number;
  startupTimeout: number;
}

export function registerWorkerCommands(program: Command): void {
  const worker = program.command("worker").description("the Python worker: multi-LoRA sampler and trainer over HTTP");
  worker
    .command("serve")
    .description("start the worker in the foreground; Ctrl-C (SIGINT) or SIGTERM stops it")
    .requiredOption("--model <directory>", "Hugging Face checkpoint directory (e.g. one made by `trace model init-tiny`)")
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--port <n>", "port to bind (0: a free one)", (text: string) => integerOption("--port", text, 0), DEFAULT_WORKER_PORT)
    .option("--api-key <key>", "require Authorization: Bearer KEY (default: TRACE_WORKER_API_KEY, if set)")
    .option("--served-model-name <name>", "the base model's name in /v1/models and requests (default: the directory's name)")
    .option("--gpus <n>", "GPUs to train on, one process each under torchrun (rank 0 serves; datums are split across them)", (text: string) => integerOption("--gpus", text, 1), 1)
    .option("--python <interpreter>", "Python interpreter (default: TRACE_PYTHON, else .venv/bin/python)")
    .option("--startup-timeout <seconds>", "how long to wait for the worker to answer /health", (text: string) => integerOption("--startup-timeout", text, 1), 600)
    .action(async (options: ServeOptions) => {
      await serveWorker(options);
    });
}

async function serveWorker(options: ServeOptions): Promise<void> {
  const worker = await startWorker({
    model: options.model,
    host: options.host,
    port: options.port === 0 ? undefined : options.port,
    ...((options.apiKey ?? process.env.TRACE_WORKER_API_KEY) === undefined ? { open: true } : { apiKey: (options.apiKey ?? process.env.TRACE_WORKER_API_KEY)! }),
    servedModelName: options.servedModelName,
    python: options.python,
    gpus: options.gpus,
    startupTimeoutMs: options.startupTimeout * 1000,
    onOutput: (stream, text) => (stream === "stdout" ? process.stdout : process.stderr).write(text),
  });
  const { model, device, dtype, worldSize } = worker.health;
  process.stdout.write(`trace: worker ready at ${worker.baseUrl} (model ${model}, ${device}, ${dtype}, world size ${worldSize}, pid ${worker.pid})\n`);
  let stoppedBySignal = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    stoppedBySignal = true;
    process.stderr.write(`trace: ${signal}: stopping the worker\n`);
    void worker.stop();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const exit = await worker.exited;
    if (!stoppedBySignal && exit.code !== 0) {
      throw new WorkerCommandError(["python", "-m", "trace_worker", "serve", "--model", options.model], exit.code, exit.signal, worker.stderrTail());
    }
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}
