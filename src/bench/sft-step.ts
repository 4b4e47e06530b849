/**
 * `npm run bench:sft [-- --steps 6 --datums 64 --tokens 205 --weighted-share 0.35 --shape overhead|config]`: one SFT
 * step as the base stage takes it — `runSft`'s cross-entropy `forwardBackward` + `optimStep` through the trainer
 * client to a real worker (a tiny checkpoint on this machine's CPU, one intra-op thread): the Node side as this
 * process's CPU time (building the scaled datums, JSON encoding the request, the HTTP client, JSON decoding and
 * zod-checking the answer; CPU time, because other processes on a shared machine disturb it far less than wall time),
 * and the step's wall time (the worker's own parts: `worker/benchmarks/sft_step.py`). Two rows: the answer with per-token logprobs (what every step sent before `returnLogprobs`) and without
 * (what `runSft` asks for now). `--shape overhead` (default) is a 1-layer × 64 model whose compute is small enough that
 * the overhead shows; `--shape config` is `configs/mini-v2-gpu.json`'s `model.initTiny` with its SFT rank (seconds per
 * step on a CPU). Each figure is the minimum over the steps after one warm-up step.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { createModuleSdk } from "../envs/modules/module-sdk.js";
import { createTinyCheckpoint, type TinyModelShape } from "../worker/tiny-checkpoint.js";
import type { Datum } from "../worker/trainer-types.js";
import { startWorker } from "../worker/worker-process.js";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "6" },
    datums: { type: "string", default: "64" },
    tokens: { type: "string", default: "205" },
    "weighted-share": { type: "string", default: "0.35" },
    shape: { type: "string", default: "overhead" },
    config: { type: "string", default: "configs/mini-v2-gpu.json" },
  },
});
const steps = Number.parseInt(values.steps, 10);
const datumCount = Number.parseInt(values.datums, 10);
const meanTokens = Number.parseInt(values.tokens, 10);
const weightedShare = Number.parseFloat(values["weighted-share"]);

const configured = JSON.parse(readFileSync(values.config, "utf8")) as { model: { initTiny: TinyModelShape & Record<string, unknown>; sft: { rank: number } } };
const shape: TinyModelShape =
  values.shape === "config"
    ? configured.model.initTiny
    : { vocabSize: configured.model.initTiny.vocabSize ?? 2048, hiddenSize: 64, layers: 1, attentionHeads: 4, keyValueHeads: 2, headDim: 16, intermediateSize: 192, tieEmbeddings: true };
const rank = values.shape === "config" ? configured.model.sft.rank : 64;

/** Datums shaped like the base stage's: lengths within ±25% of the mean, weight 1 on assistant-like spans of 16. */
function datums(seed: number): Datum[] {
  const random = createModuleSdk().random(seed); // the capability SDK's seeded generator: every run times the same datums
  const vocabulary = shape.vocabSize ?? 2048;
  return Array.from({ length: datumCount }, () => {
    const length = Math.floor(meanTokens * 0.75 + random.next() * meanTokens * 0.5);
    const ids = Array.from({ length: length + 1 }, () => Math.floor(random.next() * vocabulary));
    const gap = Math.max(1, Math.round(16 / weightedShare)) - 16;
    const weights = new Array<number>(length).fill(0);
    for (let start = Math.floor(random.next() * (gap + 1)); start < length; start += 16 + gap) for (let position = start; position < Math.min(length, start + 16); position += 1) weights[position] = 1;
    return { tokens: ids.slice(0, -1), targetTokens: ids.slice(1), weights };
  });
}

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-bench-sft-"));
try {
  const checkpoint = path.join(scratch, "tiny");
  await createTinyCheckpoint(checkpoint, shape);
  // One intra-op thread: on a shared 2-core machine two made the same step's time vary fourfold.
  const worker = await startWorker({ model: checkpoint, servedModelName: "tiny", env: { ...process.env, OMP_NUM_THREADS: "1" } });
  try {
    const trainer = worker.trainerClient();
    await trainer.createAdapter({ name: "sft", rank, alpha: rank, seed: 0 });
    const batches = Array.from({ length: steps + 1 }, (_, index) => datums(index));
    const rows: string[][] = [];
    for (const returnLogprobs of [true, false]) {
      const totals: number[] = [];
      const nodeCpu: number[] = [];
      for (const [index, batch] of batches.entries()) {
        const started = performance.now();
        const cpu = process.cpuUsage();
        // runSft's step: weights scaled by 1 / the batch's weighted tokens, then forward_backward and optim_step.
        const tokens = batch.reduce((sum, datum) => sum + datum.weights!.reduce((total, weight) => total + weight, 0), 0);
        const scaled = batch.map((datum) => ({ ...datum, weights: datum.weights!.map((weight) => weight / tokens) }));
        await trainer.forwardBackward({ adapter: "sft", loss: "cross_entropy", datums: scaled, returnLogprobs });
        await trainer.optimStep({ adapter: "sft", learningRate: 1e-3 });
        if (index === 0) continue;
        const used = process.cpuUsage(cpu);
        totals.push(performance.now() - started);
        nodeCpu.push((used.user + used.system) / 1000);
      }
      rows.push([returnLogprobs ? "per-token logprobs in the answer (every step before)" : "`returnLogprobs: false` (runSft now)", Math.min(...nodeCpu).toFixed(1), Math.min(...totals).toFixed(1)]);
    }
    const tokens = batches[0]!.reduce((sum, datum) => sum + datum.tokens.length, 0);
    console.log(`${values.shape === "config" ? `${shape.layers} × ${shape.hiddenSize}` : "1 × 64"} model, LoRA rank ${rank}; ${datumCount} datums, ${tokens} tokens; CPU, one intra-op thread; min over ${steps} steps (ms)\n`);
    console.log(markdownTable([["one SFT step", "Node process CPU time (datums, JSON, HTTP client, zod)", "wall time of the step (Node + HTTP + worker)"], ...rows]));
  } finally {
    await worker.stop();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
