import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { writeFakePythonInterpreter } from "../testing/fake-python-interpreter.js";
import { createTinyCheckpoint, tinyCheckpointArguments } from "./tiny-checkpoint.js";
import { WorkerCommandError } from "./worker-command-error.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-tiny-checkpoint-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const SMALL = { vocabSize: 400, hiddenSize: 16, layers: 1, attentionHeads: 2, keyValueHeads: 1, headDim: 8, intermediateSize: 32 };

test("init-tiny arguments: the corpus file comes after the sizes as --corpus, as given", () => {
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", {}, { corpus: "world.txt" }), ["init-tiny", "/tmp/m", "--corpus", "world.txt"]);
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", { layers: 1, seed: 3 }, { corpus: "/data/world.txt" }), [
    "init-tiny", "/tmp/m", "--layers", "1", "--seed", "3", "--corpus", "/data/world.txt",
  ]); // prettier-ignore
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", { seed: 3 }), ["init-tiny", "/tmp/m", "--seed", "3"]);
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", { seed: 3, tieEmbeddings: true }), ["init-tiny", "/tmp/m", "--seed", "3", "--tie-embeddings"]);
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", { tieEmbeddings: false }), ["init-tiny", "/tmp/m"]);
  assert.deepEqual(tinyCheckpointArguments("/tmp/m", {}, { chatCorpus: "/data/demos.jsonl", mergeAcrossWords: true }), ["init-tiny", "/tmp/m", "--chat-corpus", "/data/demos.jsonl", "--merge-across-words"]);
});

test("createTinyCheckpoint passes a relative corpus as an absolute path (the worker runs in the repository root)", async () => {
  const record = path.join(scratch, "record.jsonl");
  const python = writeFakePythonInterpreter(scratch);
  await assert.rejects(
    createTinyCheckpoint("/tmp/m", {}, { corpus: "relative/world.txt", python, env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "crash", TRACE_FAKE_WORKER_RECORD: record }, onOutput: () => undefined }),
    (error: unknown) => WorkerCommandError.isInstance(error),
  );
  const { argv } = JSON.parse(readFileSync(record, "utf8").trim()) as { argv: string[] };
  assert.deepEqual(argv.slice(-2), ["--corpus", path.resolve("relative/world.txt")]);
});

test("a real init-tiny with a corpus makes the corpus's frequent words single tokens; a missing corpus is refused naming it", async () => {
  const words = ["zorblax", "quuxifrag", "snarfwidget"];
  const corpus = path.join(scratch, "world.txt");
  writeFileSync(corpus, Array.from({ length: 600 }, (_, index) => words.slice(index % 3).concat(words.slice(0, index % 3)).join(" ")).join("\n\n"));
  const directory = path.join(scratch, "world-model");
  await createTinyCheckpoint(directory, SMALL, { corpus, onOutput: () => undefined });
  const vocabulary = (JSON.parse(readFileSync(path.join(directory, "tokenizer.json"), "utf8")) as { model: { vocab: Record<string, number> } }).model.vocab;
  for (const word of words) assert.ok(`Ġ${word}` in vocabulary && word in vocabulary, word);

  const missing = path.join(scratch, "no-such-world.txt");
  await assert.rejects(createTinyCheckpoint(path.join(scratch, "never"), SMALL, { corpus: missing, onOutput: () => undefined }), (error: unknown) => {
    assert.ok(WorkerCommandError.isInstance(error), String(error));
    assert.match(error.stderrTail, /corpus file .*no-such-world\.txt does not exist/);
    return true;
  });
});
