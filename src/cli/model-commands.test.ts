import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { writeFakePythonInterpreter } from "../testing/fake-python-interpreter.js";
import { tinyCheckpointArguments } from "../worker/tiny-checkpoint.js";

const run = promisify(execFile);
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-model-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("init-tiny arguments: only the sizes given, in the worker's flag names", () => {
  assert.deepEqual(tinyCheckpointArguments("/tmp/m"), ["init-tiny", "/tmp/m"]);
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", { vocabSize: 300, hiddenSize: 128, layers: 1, attentionHeads: 2, keyValueHeads: 1, headDim: 8, intermediateSize: 64, experts: 4, seed: 7 }), [
    "init-tiny",
    "/tmp/m",
    "--vocab-size", "300", "--hidden-size", "128", "--layers", "1", "--attention-heads", "2", "--key-value-heads", "1",
    "--head-dim", "8", "--intermediate-size", "64", "--experts", "4", "--seed", "7",
  ]); // prettier-ignore
});

test("trace model init-tiny runs `python -m trace_worker init-tiny` with the sizes given and streams its output", async () => {
  const fakePython = writeFakePythonInterpreter(scratch);
  const record = path.join(scratch, "init-tiny.jsonl");
  // The fake worker treats any command as `serve`; SIGTERM after it answers is not what init-tiny does, so use `crash`
  // for the failure path and the record for the arguments.
  await assert.rejects(
    run(process.execPath, [bin, "model", "init-tiny", path.join(scratch, "m"), "--vocab-size", "300", "--experts", "0", "--python", fakePython], {
      env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "crash", TRACE_FAKE_WORKER_RECORD: record },
    }),
    (error: unknown) => {
      const { code, stderr } = error as { code: number; stderr: string };
      assert.equal(code, 1);
      assert.match(stderr, /Loading the model…/); // streamed
      assert.match(stderr, /^trace: -m trace_worker init-tiny .* failed \(exit code 3\): FileNotFoundError: no config.json in the model directory$/m);
      return true;
    },
  );
  const [started] = readFileSync(record, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { argv: string[] });
  assert.deepEqual(started?.argv, ["-m", "trace_worker", "init-tiny", path.join(scratch, "m"), "--vocab-size", "300", "--experts", "0"]);
  await assert.rejects(run(process.execPath, [bin, "model", "init-tiny", "/tmp/x", "--layers", "two"]), /--layers must be an integer ≥ 1, got "two"/);
});

test("trace model init-tiny through the real worker: a checkpoint directory, or the worker's own refusal of a bad size", { timeout: 120_000 }, async () => {
  const directory = path.join(scratch, "tiny");
  const { stdout } = await run(process.execPath, [bin, "model", "init-tiny", directory, "--vocab-size", "300", "--hidden-size", "32", "--seed", "3"]);
  assert.match(stdout, /wrote a tiny Qwen3 checkpoint to/);
  const config = JSON.parse(readFileSync(path.join(directory, "config.json"), "utf8")) as { hidden_size: number; vocab_size: number };
  assert.deepEqual([config.hidden_size, config.vocab_size], [32, 300]);
  for (const file of ["model.safetensors", "tokenizer.json", "tokenizer_config.json"]) readFileSync(path.join(directory, file));
  await assert.rejects(run(process.execPath, [bin, "model", "init-tiny", path.join(scratch, "bad"), "--vocab-size", "10"]), (error: unknown) => {
    const { code, stderr } = error as { code: number; stderr: string };
    assert.equal(code, 1);
    assert.match(stderr, /^trace: -m trace_worker init-tiny .* failed \(exit code 2\): trace-worker: vocab_size must be at least \d+/m);
    return true;
  });
});
