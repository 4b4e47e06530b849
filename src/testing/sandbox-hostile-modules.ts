/**
 * Hostile capability modules for the sandbox's red-team suite: each payload is the minimal module with attack code
 * injected, the call that runs it, and how its containment shows (a `SandboxError` of the right kind, or a result the
 * host can check and that proves the attack did nothing).
 */
import type { ModuleInstance } from "../envs/modules/capability-module.js";
import type { SandboxLimits } from "../synthesis/sandbox/quickjs-sandbox.js";
import type { SandboxFailureKind } from "../synthesis/sandbox/sandbox-error.js";
import type { ModuleHooks } from "./sandbox-test-modules.js";
import { minimalModuleSource } from "./sandbox-test-modules.js";

/** What a payload attacks. */
export type HostileCategory = "escape" | "prototype" | "loop" | "memory" | "recursion" | "nondeterminism" | "output" | "promise" | "reward";

/** How a contained payload ends: refused with a `SandboxError` of `kind` (and `message`), or a result `check` accepts. */
export type Containment =
  | {
      /** The kind of the `SandboxError`, or the kinds it may honestly be (a race between two limits). */
      kind: SandboxFailureKind | SandboxFailureKind[];
      message?: RegExp;
    }
  | {
      /** Returns what is wrong with the result (the attack got through), or `undefined` when it is harmless. */
      check(result: unknown): string | undefined;
    };

/** One attack. */
export interface HostilePayload {
  name: string;
  category: HostileCategory;
  /** The attack code, injected into the minimal module (or `source`, a whole module, instead). */
  hooks?: ModuleHooks;
  source?: string;
  /** Where the attack runs: loading the module, or calls of one function (default `generate`, once). */
  call?: "load" | "generate" | "runTool" | "verify";
  /** How many calls in a row, seeds 1…calls (for attacks that keep something across calls). */
  calls?: number;
  /** Limits that differ from the suite's. */
  limits?: Partial<SandboxLimits>;
  contained: Containment;
}

/** A `generate` return expression whose `facts` is the given expression (the attack's observations). */
function reporting(factsExpression: string): string {
  return `{ state: {}, request: "report", followUps: [], solution: [], mustSay: [], facts: ${factsExpression} } as unknown as ModuleInstance`;
}

/** A check that the instance's `facts` equal `expected` (JSON-compared). */
function factsEqual(expected: unknown): (result: unknown) => string | undefined {
  return (result) => {
    const facts = (result as ModuleInstance).facts;
    return JSON.stringify(facts) === JSON.stringify(expected) ? undefined : `facts ${JSON.stringify(facts)}, expected ${JSON.stringify(expected)}`;
  };
}

/** A check that the instance is the minimal module's ordinary one (the attack changed nothing it returns). */
function ordinaryInstance(result: unknown): string | undefined {
  const instance = result as ModuleInstance;
  return typeof instance.facts.id === "string" && instance.request.startsWith("Please cancel reservation") ? undefined : `an altered instance: ${JSON.stringify(instance).slice(0, 200)}`;
}

const hostGlobals = [
  "process", "require", "module", "exports", "Buffer", "global", "fetch", "WebSocket", "XMLHttpRequest", "setTimeout", "setInterval",
  "setImmediate", "queueMicrotask", "std", "os", "print", "scriptArgs", "WebAssembly", "Atomics", "performance", "navigator", "Deno", "Bun",
  "importScripts", "postMessage", "__filename", "__dirname", "gc",
];

const verdict = (fields: string): string => `return ${fields} as any;`;

/** Every payload of the red-team suite. */
export const hostilePayloads: HostilePayload[] = [
  // Escapes: reach the host's objects, its module system, native code, or block the thread.
  {
    name: "look for host objects on globalThis (process, require, fetch, timers, quickjs-libc's std/os, WebAssembly, Atomics…)",
    category: "escape",
    hooks: { instance: reporting(`{ found: ${JSON.stringify(hostGlobals)}.filter((name) => name in globalThis) }`) },
    contained: { check: factsEqual({ found: [] }) },
  },
  {
    name: "reach the global object through the Function constructor and read process / require from it",
    category: "escape",
    hooks: { instance: reporting(`(() => { const global = new Function("return this")(); return { process: typeof global.process, require: typeof global.require }; })()`) },
    contained: { check: factsEqual({ process: "undefined", require: "undefined" }) },
  },
  {
    name: "climb from the SDK's functions to their constructor and evaluate code as the host",
    category: "escape",
    hooks: { instance: reporting(`{ seen: (sdk.random as any).constructor("return typeof process + ' ' + typeof require + ' ' + typeof fetch")() }`) },
    contained: { check: factsEqual({ seen: "undefined undefined undefined" }) },
  },
  {
    name: "dynamic import() through indirect eval, its promise callback storing the module for the next call",
    category: "escape",
    hooks: {
      generate: `if (seed === 1) (0, eval)("import('node:fs')").then((fs: unknown) => { (globalThis as any).leaked = fs; }, (error: unknown) => { (globalThis as any).leaked = error; });`,
      instance: reporting(`{ leaked: typeof (globalThis as any).leaked }`),
    },
    calls: 2,
    contained: { check: factsEqual({ leaked: "undefined" }) },
  },
  { name: "require built by string concatenation through eval", category: "escape", hooks: { generate: `(0, eval)("req" + "uire")("node:child_process");` }, contained: { kind: "throw", message: /require.? is not defined/ } },
  { name: "process.exit(1) to take the host down", category: "escape", hooks: { generate: `(globalThis as any).process.exit(1);` }, contained: { kind: "throw", message: /TypeError/ } },
  { name: "compile native code with WebAssembly", category: "escape", hooks: { generate: `new (globalThis as any).WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));` }, contained: { kind: "throw", message: /TypeError/ } },
  { name: "block the thread with Atomics.wait on a SharedArrayBuffer", category: "escape", hooks: { generate: `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);` }, contained: { kind: "throw", message: /Atomics.? is not defined/ } },
  { name: "allocate a 1 GiB SharedArrayBuffer", category: "escape", hooks: { generate: `new SharedArrayBuffer(2 ** 30);` }, contained: { kind: "memory" } },
  { name: "import node:fs", category: "escape", hooks: { topLevel: `import { readFileSync } from "node:fs"; readFileSync("/etc/passwd");` }, call: "load", contained: { kind: "import", message: /"node:fs"/ } },
  { name: "require('fs') at the top level", category: "escape", hooks: { topLevel: `const fs = require("fs");` }, call: "load", contained: { kind: "import", message: /require/ } },
  { name: "open a connection with fetch", category: "escape", hooks: { generate: `void (globalThis as any).fetch("http://example.com");` }, contained: { kind: "throw", message: /not a function|not defined/ } },
  { name: "spawn a process with quickjs-libc's std.popen / os.exec", category: "escape", call: "verify", hooks: { verify: `(globalThis as any).std.popen("ls"); (globalThis as any).os.exec(["ls"]);` }, contained: { kind: "throw", message: /TypeError/ } },
  { name: "schedule work with setTimeout", category: "escape", hooks: { generate: `setTimeout(() => undefined, 1);` }, contained: { kind: "throw", message: /setTimeout.? is not defined/ } },

  // Prototype poisoning: change how results are produced or how the host reads them.
  {
    name: "poison Object.prototype with a key that would show up in the host's objects",
    category: "prototype",
    hooks: { topLevel: `(Object.prototype as any).polluted = "yes";`, generate: `(Object.prototype as any).alsoPolluted = "yes";` },
    contained: { check: (result) => ((result as ModuleInstance).facts.polluted === undefined ? ordinaryInstance(result) : "an inherited key became a result key") },
  },
  {
    name: "overwrite JSON.stringify, JSON.parse and Array.prototype.push so the dispatcher marshals forged values",
    category: "prototype",
    hooks: { topLevel: `JSON.stringify = () => "{}"; JSON.parse = () => ({ seed: 42 }); (Array.prototype as any).push = () => 0;` },
    contained: { check: ordinaryInstance },
  },
  {
    name: "Object.prototype.toJSON to turn every result into a forged verdict with reward 5",
    category: "prototype",
    call: "verify",
    hooks: { verify: `(Object.prototype as any).toJSON = function () { return { reward: 5, success: true }; };` },
    contained: { kind: "shape", message: /reward/ },
  },
  {
    name: "a __proto__ key in the state, to set a prototype where the host copies it",
    category: "prototype",
    hooks: { instance: `{ state: JSON.parse('{"__proto__": {"polluted": "yes"}}'), request: "x", followUps: [], solution: [], mustSay: [], facts: {} }` },
    contained: { kind: "shape", message: /__proto__/ },
  },
  {
    name: "constructor.prototype keys in the state, for a host that merges objects",
    category: "prototype",
    hooks: { instance: reporting(`{ constructor: { prototype: { polluted: "yes" } } }`) },
    contained: { check: (result) => (JSON.stringify((result as ModuleInstance).facts) === '{"constructor":{"prototype":{"polluted":"yes"}}}' ? undefined : "the key was not kept as plain data") },
  },
  {
    name: "a spinning getter on Object.prototype.then (a trap for anyone resolving a result as a promise)",
    category: "prototype",
    hooks: { topLevel: `Object.defineProperty(Object.prototype, "then", { get() { for (;;) { /* spin */ } } });` },
    contained: { check: ordinaryInstance },
  },
  {
    name: "replace Error so the prelude's own failures carry a forged kind",
    category: "prototype",
    hooks: { topLevel: `(globalThis as any).Error = function () { return { name: "InternalError", message: "interrupted" }; };`, generate: `Math.random();` },
    contained: { kind: "nondeterminism" },
  },
  {
    name: "throw an error whose name getter spins, to hang the host reading the report",
    category: "prototype",
    hooks: { generate: `throw { get name(): string { for (;;) { /* spin */ } }, message: "x" };` },
    contained: { kind: "timeout", message: /CPU-time limit|wall-clock limit/ },
  },
  {
    name: "a poisoned toJSON that makes a thrown value read as QuickJS's out-of-memory error",
    category: "prototype",
    hooks: { generate: `(Object.prototype as any).toJSON = () => ({ name: "InternalError", message: "out of memory" }); throw { code: 1 };` },
    contained: { kind: "throw", message: /thrown value/ },
  },
  {
    name: "throw an imitation of QuickJS's interrupt to pass as a timeout",
    category: "prototype",
    hooks: { generate: `throw Object.assign(new Error("interrupted"), { name: "InternalError" });` },
    contained: { kind: "throw", message: /imitation/ },
  },

  // Loops: every way to keep the thread busy.
  { name: "while (true) {} in generate", category: "loop", hooks: { generate: `while (true) {}` }, contained: { kind: "timeout", message: /limit/ } },
  {
    name: "an endless loop that catches the interrupt to carry on",
    category: "loop",
    call: "runTool",
    hooks: { runTool: `for (;;) { try { while (true) {} } catch { /* cannot catch the interrupt */ } }` },
    contained: { kind: "timeout" },
  },
  { name: "an endless loop at load", category: "loop", hooks: { topLevel: `while (true) {}` }, call: "load", contained: { kind: "timeout" } },
  { name: "an endless loop inside a native built-in's callback (Array.prototype.sort)", category: "loop", hooks: { generate: `[2, 1].sort(() => { for (;;) { /* spin */ } });` }, contained: { kind: "timeout" } },
  { name: "catastrophic regular-expression backtracking", category: "loop", hooks: { generate: `/^(a+)+$/.test("a".repeat(64) + "!");` }, contained: { kind: "timeout" } },
  { name: "an endless loop in the verifier", category: "loop", call: "verify", hooks: { verify: `for (;;) { /* spin */ }` }, contained: { kind: "timeout" } },

  // Memory: exhaust it at once, bit by bit across calls, or quietly.
  {
    name: "keep 4 MiB more in a global on every call (80 MiB over 20 calls)",
    category: "memory",
    hooks: { topLevel: `const hoard: string[] = [];`, generate: `hoard.push("x".repeat(4 * 1024 * 1024 - 1) + seed);` },
    calls: 20,
    contained: { kind: "memory", message: /memory limit/ },
  },
  { name: "a memory bomb: arrays pushed forever in one call", category: "memory", hooks: { generate: `const hoard: number[][] = []; while (true) hoard.push(new Array(1e5).fill(seed));` }, contained: { kind: "memory" } },
  { name: "a 1 GiB typed array", category: "memory", hooks: { generate: `new Uint8Array(2 ** 30);` }, contained: { kind: "memory", message: /32 MiB/ } },
  { name: "a string doubled until it breaks", category: "memory", hooks: { generate: `let text = "x"; for (;;) text = text + text + "y";` }, contained: { kind: "memory" } },
  {
    name: "catch the out-of-memory error and carry on as if nothing happened",
    category: "memory",
    hooks: { topLevel: `const hoard: Uint8Array[] = [];`, generate: `try { for (;;) hoard.push(new Uint8Array(1024 * 1024)); } catch { /* ignore */ }` },
    contained: { kind: "memory", message: /caught/ },
  },
  {
    name: "return a 100 MB string",
    category: "memory",
    hooks: { instance: `{ state: { text: "x".repeat(100e6) }, request: "x", followUps: [], solution: [], mustSay: [], facts: {} }` },
    contained: { kind: "memory" },
  },

  // Recursion: overflow QuickJS's stack, or the thread's through a recursive native built-in.
  { name: "unbounded recursion", category: "recursion", hooks: { generate: `const deep = (n: number): number => deep(n + 1) + 1; deep(0);` }, contained: { kind: "memory", message: /stack/ } },
  { name: "unbounded recursion at load", category: "recursion", hooks: { topLevel: `const deep = (n: number): number => deep(n + 1) + 1; deep(0);` }, call: "load", contained: { kind: "memory", message: /stack/ } },
  {
    name: "JSON.stringify of 100,000 nested arrays (recursion inside a native built-in)",
    category: "recursion",
    hooks: { generate: `let nested: unknown[] = []; for (let index = 0; index < 100000; index++) nested = [nested]; JSON.stringify(nested);` },
    // The built-in cannot be interrupted: the thread's stack ends it (memory), or on a slow machine the host's hard stop.
    contained: { kind: ["memory", "timeout"], message: /stack|hard stop/ },
  },

  // Nondeterminism: every clock and random source.
  { name: "Math.random()", category: "nondeterminism", hooks: { generate: `Math.random();` }, contained: { kind: "nondeterminism", message: /Math\.random.*sdk\.random/ } },
  { name: "Date.now()", category: "nondeterminism", hooks: { generate: `Date.now();` }, contained: { kind: "nondeterminism", message: /Date\.now/ } },
  { name: "new Date()", category: "nondeterminism", hooks: { generate: `new Date();` }, contained: { kind: "nondeterminism", message: /new Date/ } },
  { name: "Date() called as a function", category: "nondeterminism", hooks: { generate: `Date();` }, contained: { kind: "nondeterminism", message: /Date\(\)/ } },
  { name: "the original Date.now recovered through Date.prototype.constructor", category: "nondeterminism", hooks: { generate: `(new Date(0).constructor as any).now();` }, contained: { kind: "nondeterminism" } },
  { name: "WeakRef (what it sees depends on the garbage collector)", category: "nondeterminism", hooks: { generate: `new WeakRef({});` }, contained: { kind: "nondeterminism", message: /WeakRef/ } },
  { name: "performance.now()", category: "nondeterminism", hooks: { generate: `(globalThis as any).performance.now();` }, contained: { kind: "throw", message: /TypeError/ } },

  // Outputs the host should not have to take.
  {
    name: "a result longer than resultCharacters",
    category: "output",
    limits: { resultCharacters: 100_000 },
    hooks: { instance: `{ state: { text: "x".repeat(1_000_000) }, request: "x", followUps: [], solution: [], mustSay: [], facts: {} }` },
    contained: { kind: "shape", message: /resultCharacters/ },
  },
  {
    name: "a result nested 1,000 levels deep",
    category: "output",
    hooks: { instance: `(() => { let nested: any = {}; for (let index = 0; index < 1000; index++) nested = { nested }; return { state: nested, request: "x", followUps: [], solution: [], mustSay: [], facts: {} }; })()` },
    contained: { kind: "shape", message: /resultDepth/ },
  },
  {
    name: "metadata (tool descriptions) longer than resultCharacters",
    category: "output",
    limits: { resultCharacters: 100_000 },
    source: minimalModuleSource({}).replace(`description: "Reads a reservation."`, `description: "x".repeat(1_000_000)`),
    call: "load",
    contained: { kind: "shape", message: /resultCharacters/ },
  },
  {
    name: "an endless toJSON chain (every value's toJSON returns a fresh object with a nested value)",
    category: "output",
    hooks: { generate: `(Object.prototype as any).toJSON = function () { return { nested: {} }; }; return {} as any;` },
    // Whichever comes first: the thread's stack (memory), the CPU budget (toJSON is JavaScript), or the hard stop.
    contained: { kind: ["memory", "timeout"], message: /stack|limit|hard stop/ },
  },
  { name: "a cyclic result", category: "output", hooks: { generate: `const loop: any = {}; loop.self = loop; return loop;` }, contained: { kind: "non-json" } },

  // Promises that never settle (no job queue runs in the sandbox).
  { name: "an async generate", category: "promise", source: minimalModuleSource({}).replace("generate(seed, sdk, level?: number): ModuleInstance {", "async generate(seed: number, sdk: any, level?: number): Promise<any> {").replace("const definition: CapabilityModule", "const definition: any"), contained: { kind: "shape", message: /Promise/ } },
  {
    name: "await new Promise(() => {}) in an async verify",
    category: "promise",
    call: "verify",
    source: minimalModuleSource({ verify: `await new Promise(() => {});` }).replace("verify(input, sdk) {", "async verify(input: any, sdk: any) {").replace("const definition: CapabilityModule", "const definition: any"),
    contained: { kind: "shape", message: /Promise/ },
  },
  {
    name: "a promise job at load that would spin forever if any job queue ran",
    category: "promise",
    hooks: { topLevel: `void Promise.resolve().then(() => { for (;;) { /* spin */ } });` },
    contained: { check: ordinaryInstance },
  },
  { name: "a thenable result", category: "promise", hooks: { generate: `return { then(resolve: (value: unknown) => void) { resolve({}); } } as unknown as ModuleInstance;` }, contained: { kind: "non-json", message: /then/ } },

  // Reward forging: verdicts outside the contract.
  { name: "reward 5", category: "reward", call: "verify", hooks: { verify: verdict(`{ reward: 5, success: true, breakdown: {} }`) }, contained: { kind: "shape", message: /reward/ } },
  { name: "reward NaN", category: "reward", call: "verify", hooks: { verify: verdict(`{ reward: NaN, success: false, breakdown: {} }`) }, contained: { kind: "non-json", message: /NaN/ } },
  { name: "reward Infinity", category: "reward", call: "verify", hooks: { verify: verdict(`{ reward: Infinity, success: true, breakdown: {} }`) }, contained: { kind: "non-json", message: /Infinity/ } },
  { name: "reward -1", category: "reward", call: "verify", hooks: { verify: verdict(`{ reward: -1, success: false, breakdown: {} }`) }, contained: { kind: "shape", message: /reward/ } },
  { name: 'reward "1" (a string)', category: "reward", call: "verify", hooks: { verify: verdict(`{ reward: "1", success: true, breakdown: {} }`) }, contained: { kind: "shape", message: /reward/ } },
  { name: "a verdict without success", category: "reward", call: "verify", hooks: { verify: verdict(`{ reward: 1, breakdown: {} }`) }, contained: { kind: "shape", message: /success/ } },
  { name: "a verdict that is an array", category: "reward", call: "verify", hooks: { verify: verdict(`[1, true, {}]`) }, contained: { kind: "shape" } },
];

/** The module source a payload runs. */
export function payloadSource(payload: HostilePayload): string {
  return payload.source ?? minimalModuleSource(payload.hooks);
}
