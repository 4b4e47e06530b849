/** The JavaScript evaluated in every fresh QuickJS context before the module: determinism guards and the dispatcher. */

/**
 * Source of a function expression `(createModuleSdk, resultCharacters) => load`, where `load(moduleBody)` runs the
 * module's CommonJS body and returns `dispatch(method, argumentsJson) → resultJson`. It captures `JSON`, `Reflect` and
 * friends before any module code runs, so a module that overwrites them cannot change how results are marshalled.
 *
 * Determinism: `Math.random`, `Date.now`, `Date()` and `new Date()` (no arguments) throw a `NondeterminismError`, and
 * so do `WeakRef` and `FinalizationRegistry` (what they see depends on when the garbage collector ran); `new
 * Date(value)` with an explicit value stays (it is deterministic and modules parse `sdk.now` with it). Return values go
 * through a `JSON.stringify` replacer that refuses `undefined`, functions, symbols, big integers and non-finite numbers
 * (a `NonJsonError` naming the key) and the key `__proto__` (a `ShapeError`: copying such a value on the host would set
 * a prototype); a Promise (an `async` function) is refused with a `ShapeError` (module functions are synchronous, and
 * no job queue ever runs), and a JSON text longer than `resultCharacters` with a `ResultLimitError`.
 */
export const sandboxPrelude = String.raw`(function (createModuleSdk, resultCharacters) {
  "use strict";
  var stringify = JSON.stringify, parse = JSON.parse, construct = Reflect.construct, isFinite_ = Number.isFinite;
  var RealDate = Date, slice = Array.prototype.slice, call = Function.prototype.call;
  var getPrototypeOf = Object.getPrototypeOf, PromisePrototype = Promise.prototype, BaseError = Error, toText = String;
  function fail(name, message) { var error = new BaseError(message); error.name = name; throw error; }
  function nondeterministic(what) {
    fail("NondeterminismError", what + " is nondeterministic and not available to capability modules: use sdk.random(seed) and sdk.now");
  }
  Math.random = function random() { nondeterministic("Math.random()"); };
  var SafeDate = function Date() {
    if (new.target === undefined) nondeterministic("Date()");
    if (arguments.length === 0) nondeterministic("new Date()");
    return construct(RealDate, slice.call(arguments), new.target);
  };
  SafeDate.prototype = RealDate.prototype;
  SafeDate.parse = RealDate.parse;
  SafeDate.UTC = RealDate.UTC;
  SafeDate.now = function now() { nondeterministic("Date.now()"); };
  Object.defineProperty(RealDate.prototype, "constructor", { value: SafeDate, writable: false, configurable: false });
  globalThis.Date = SafeDate;
  globalThis.WeakRef = function WeakRef() { nondeterministic("WeakRef"); };
  globalThis.FinalizationRegistry = function FinalizationRegistry() { nondeterministic("FinalizationRegistry"); };
  var quiet = function () {};
  globalThis.console = { log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet };
  var sdk = createModuleSdk();
  function replacer(key, value) {
    if (key === "__proto__") fail("ShapeError", "the key \"__proto__\" is not allowed in a result (copying the value on the host would set its prototype)");
    var type = typeof value;
    if (type === "number" && !isFinite_(value)) fail("NonJsonError", "non-finite number " + toText(value) + " at key " + stringify(key));
    if (type === "undefined" || type === "function" || type === "symbol" || type === "bigint") {
      fail("NonJsonError", type + " at key " + stringify(key));
    }
    return value;
  }
  function limited(method, text) {
    if (text.length > resultCharacters) {
      fail("ResultLimitError", method + " returned " + text.length + " characters of JSON, over the limit of " + resultCharacters + " (resultCharacters)");
    }
    return text;
  }
  return function load(moduleBody) {
    var exports = {};
    call.call(moduleBody, undefined, exports);
    var definition = exports.default;
    if (definition === null || typeof definition !== "object") fail("ShapeError", "the module has no default export object (export default { capability, …, generate, runTool, verify })");
    var metadata = {
      capability: definition.capability, description: definition.description, policy: definition.policy,
      tools: definition.tools, newTools: definition.newTools === undefined ? [] : definition.newTools, readTools: definition.readTools,
      difficulty: definition.difficulty,
      functions: { generate: typeof definition.generate, runTool: typeof definition.runTool, verify: typeof definition.verify },
    };
    var metadataJson = stringify(metadata); // missing fields are dropped here and reported by the host's schema
    return function dispatch(method, argumentsJson) {
      var input = parse(argumentsJson), result;
      if (method === "metadata") return limited(method, metadataJson);
      else if (method === "generate") result = definition.generate(input.seed, sdk, input.difficulty);
      else if (method === "runTool") result = definition.runTool(input.state, input.name, input.arguments, sdk);
      else if (method === "verify") result = definition.verify(input.input, sdk);
      else fail("ShapeError", "unknown method " + method);
      if (result === undefined) fail("NonJsonError", method + " returned undefined");
      if (result !== null && typeof result === "object" && getPrototypeOf(result) === PromisePrototype) {
        fail("ShapeError", method + " returned a Promise (an async function?): module functions must be synchronous");
      }
      return limited(method, stringify(result, replacer));
    };
  };
})`;
