/**
 * Sandbox overhead per step: the median time of one `runTool` call (a step of an episode) for the same module run
 * natively, in QuickJS in this thread (`QuickJsSandbox`, isolating the interpreter's cost), and through the sandboxed
 * runner (QuickJS in a worker thread: the interpreter plus the message round trip), measured side by side in one run.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import { QuickJsSandbox } from "../synthesis/sandbox/quickjs-sandbox.js";
import { loadSandboxedModule } from "../synthesis/sandbox/sandboxed-module-runner.js";
import { transpileModuleSource } from "../synthesis/sandbox/transpile-module-source.js";
import type { ModuleInstance } from "../envs/modules/capability-module.js";
import { createModuleSdk } from "../envs/modules/module-sdk.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";

const sourceDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/synthesis/environments");

/** One module's medians, in microseconds per `runTool` call. */
export interface SandboxOverheadRow {
  capability: string;
  steps: number;
  nativeMicroseconds: number;
  inThreadMicroseconds: number;
  workerMicroseconds: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function timeSteps(instances: readonly ModuleInstance[], step: (state: ModuleInstance["state"], name: string, args: ModuleInstance["solution"][number]["arguments"]) => Promise<ModuleInstance["state"]>): Promise<number[]> {
  const times: number[] = [];
  for (const instance of instances) {
    let state = instance.state;
    for (const call of instance.solution) {
      const started = process.hrtime.bigint();
      state = await step(state, call.name, call.arguments);
      times.push(Number(process.hrtime.bigint() - started) / 1000);
    }
  }
  return times;
}

/** Runs the benchmark over the hand-written modules, `seeds` instances each, after `warmup` untimed instances. */
export async function benchSandboxOverhead(options: { seeds: number; warmup: number }): Promise<SandboxOverheadRow[]> {
  const rows: SandboxOverheadRow[] = [];
  for (const { module, file } of CAPABILITY_ENVIRONMENTS) {
    const source = readFileSync(path.join(sourceDirectory, file), "utf8");
    const native: ModuleRunner = nativeModuleRunner(module);
    const worker = await loadSandboxedModule({ source });
    const inThread = await QuickJsSandbox.create({ javascript: transpileModuleSource(source), sdkSource: createModuleSdk.toString() });
    try {
      const all = await Promise.all(Array.from({ length: options.seeds + options.warmup }, (_, seed) => native.generate(seed)));
      const warm = all.slice(0, options.warmup);
      const timed = all.slice(options.warmup);
      const viaNative = async (state: ModuleInstance["state"], name: string, args: ModuleInstance["solution"][number]["arguments"]) => (await native.runTool(state, name, args)).state;
      const viaWorker = async (state: ModuleInstance["state"], name: string, args: ModuleInstance["solution"][number]["arguments"]) => (await worker.runTool(state, name, args)).state;
      const viaThread = (state: ModuleInstance["state"], name: string, args: ModuleInstance["solution"][number]["arguments"]) =>
        Promise.resolve((JSON.parse(inThread.call("runTool", JSON.stringify({ state, name, arguments: args }))) as { state: ModuleInstance["state"] }).state);
      for (const step of [viaNative, viaThread, viaWorker]) await timeSteps(warm, step);
      const nativeTimes = await timeSteps(timed, viaNative);
      const threadTimes = await timeSteps(timed, viaThread);
      const workerTimes = await timeSteps(timed, viaWorker);
      rows.push({ capability: module.capability, steps: nativeTimes.length, nativeMicroseconds: median(nativeTimes), inThreadMicroseconds: median(threadTimes), workerMicroseconds: median(workerTimes) });
    } finally {
      inThread.dispose();
      await worker.dispose();
    }
  }
  return rows;
}

/** The table: medians per step and the sandbox's ratios to native. */
export function formatSandboxOverheadTable(rows: readonly SandboxOverheadRow[]): string {
  const header = "capability                   steps   native µs   QuickJS in-thread µs (×)   sandbox runner µs (×)";
  const lines = rows.map(
    (row) =>
      `${row.capability.padEnd(28)} ${String(row.steps).padStart(5)} ${row.nativeMicroseconds.toFixed(1).padStart(11)} ${row.inThreadMicroseconds.toFixed(1).padStart(14)} (${(row.inThreadMicroseconds / row.nativeMicroseconds).toFixed(0).padStart(4)}×) ${row.workerMicroseconds.toFixed(1).padStart(16)} (${(row.workerMicroseconds / row.nativeMicroseconds).toFixed(0).padStart(4)}×)`,
  );
  return [header, ...lines].join("\n");
}
