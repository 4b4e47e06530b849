/**
 * Tail averaging through the real path: `trace run --until base` on CPU with a tiny model, the trainer saving the
 * adapter after each of the last epochs and merging them; the merged checkpoint is checked against the mean of the
 * saved adapters' deltas, computed apart in Python from the files.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { resolvePythonInterpreter } from "../worker/python-environment.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-average-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

// The merged checkpoint minus the initial one, against the mean of the snapshots' B·A·scaling, on every adapted weight.
const CHECK = `
import json, sys, torch
from safetensors.torch import load_file
init, merged, snapshots = load_file(sys.argv[1]), load_file(sys.argv[2]), sys.argv[3:]
deltas = {}
for directory in snapshots:
    weights = load_file(directory + "/adapter_model.safetensors")
    config = json.load(open(directory + "/adapter_config.json"))
    scaling = config["lora_alpha"] / config["r"]
    for key, down in weights.items():
        if ".lora_A." not in key: continue
        name = key.replace("base_model.model.", "", 1).replace(".lora_A.weight", ".weight")
        delta = (weights[key.replace(".lora_A.", ".lora_B.")].double() @ down.double()) * scaling / len(snapshots)
        deltas[name] = deltas.get(name, 0) + delta
worst = max(float((merged[name].double() - init[name].double() - delta).abs().max() / delta.abs().max()) for name, delta in deltas.items())
unchanged = all(torch.equal(merged[name], init[name]) for name in init if name not in deltas)
print(json.dumps({"modules": len(deltas), "worst": worst, "unchanged": unchanged}))
`;

test("model.sft.averageLastEpochs: the base is the mean of the last epochs' adapters, each saved under base/sft-snapshots", { timeout: 600_000 }, async () => {
  const runDirectory = path.join(scratch, "run");
  const config = {
    name: "average-smoke",
    model: {
      initTiny: { vocabSize: 1024, hiddenSize: 32, layers: 1, attentionHeads: 2, keyValueHeads: 1, headDim: 16, intermediateSize: 64, seed: 0 },
      sft: { demonstrations: 16, epochs: 3, batchSize: 8, learningRate: 0.005, rank: 32, splitDigits: true, mechanicsDemonstrations: 2, mechanicsSamples: 1, shuffle: true, averageLastEpochs: 2 },
    },
    target: { kind: "mini", families: ["precondition", "payment", "composite"], trainingSeeds: 8, evaluationSeedStart: 100_000, evaluationSeedCount: 4, maxSteps: 6, maxTokens: 24, temperature: 1, concurrency: 8 },
  };
  const configFile = path.join(scratch, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const { stdout } = await promisify(execFile)(process.execPath, [bin, "run", configFile, "--run-dir", runDirectory, "--until", "base"], { maxBuffer: 1 << 24 });
  assert.match(stdout, /sft: the adapters after epochs 2–3 averaged \(linear merge at rank 32/);
  assert.match(stdout, /the last 2 epochs' adapters averaged/);
  const record = JSON.parse(readFileSync(path.join(runDirectory, "base", "sft.json"), "utf8")) as { losses: number[]; average: { epochs: number[]; rank: number; maxRelativeError: number }; mechanics: { demonstrations: number } };
  assert.deepEqual([record.average.epochs, record.average.rank], [[2, 3], 32]);
  // Rank 32 reaches every projection's smaller side (hidden size 32): the merge is the mean itself.
  assert.ok(record.average.maxRelativeError < 1e-5, String(record.average.maxRelativeError));
  assert.equal(record.losses.length, 3 * 2);
  assert.equal(record.mechanics.demonstrations, 2);
  const snapshots = [2, 3].map((epoch) => path.join(runDirectory, "base", "sft-snapshots", `epoch-${epoch}`));
  assert.ok(!existsSync(path.join(runDirectory, "base", "sft-snapshots", "epoch-1")), "only the averaged epochs are kept");
  const { stdout: checked } = await promisify(execFile)(resolvePythonInterpreter(), ["-c", CHECK, path.join(runDirectory, "base", "init", "model.safetensors"), path.join(runDirectory, "model", "model.safetensors"), ...snapshots]);
  const result = JSON.parse(checked) as { modules: number; worst: number; unchanged: boolean };
  // One layer: q, k, v, o, gate, up and down projections; the embedding and norms as drawn.
  assert.equal(result.modules, 7);
  assert.ok(result.worst < 1e-4, `merged − initial differs from the mean delta by ${result.worst} of its largest entry`);
  assert.ok(result.unchanged, "weights without an adapter are the initial checkpoint's");
  // The two snapshots differ (a mean of two equal adapters would test nothing).
  const [first, second] = snapshots.map((directory) => readFileSync(path.join(directory, "adapter_model.safetensors")));
  assert.ok(!first!.equals(second!));
});

test("model.sft.averageLastEpochs is refused beyond the epochs and beside refresh or corrections, in one line naming the field", async () => {
  const configFile = path.join(scratch, "bad.json");
  const target = { kind: "mini", trainingSeeds: 8, evaluationSeedStart: 100_000, evaluationSeedCount: 4 };
  const run = async (sft: Record<string, unknown>) => {
    writeFileSync(configFile, JSON.stringify({ name: "bad", model: { initTiny: { seed: 0 }, sft }, target }));
    const error = await promisify(execFile)(process.execPath, [bin, "run", configFile, "--run-dir", path.join(scratch, "bad-run"), "--until", "base"]).then(() => undefined, (failure: unknown) => failure as { code: number; stderr: string });
    assert.ok(error !== undefined && error.code !== 0, "refused");
    return error.stderr;
  };
  assert.match(await run({ epochs: 3, averageLastEpochs: 4 }), /model\.sft\.averageLastEpochs: 4 is more than model\.sft\.epochs \(3\)/);
  assert.match(await run({ epochs: 3, averageLastEpochs: 2, refresh: { demonstrations: 4 } }), /model\.sft\.averageLastEpochs: cannot be combined with model\.sft\.refresh/);
  assert.match(await run({ epochs: 3, averageLastEpochs: 2, corrections: { episodes: 4 } }), /model\.sft\.averageLastEpochs: cannot be combined with model\.sft\.corrections/);
  assert.ok(!existsSync(path.join(scratch, "bad-run", "base")), "nothing trained");
});
