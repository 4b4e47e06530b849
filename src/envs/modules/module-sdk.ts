/** The native `ModuleSdk`: seeded random, τ²'s fixed time, canonical JSON and a stable hash, for capability modules. */
import type { ModuleSdk } from "./capability-module.js";

/**
 * Builds the helpers every module function receives.
 *
 * Self-contained on purpose: no imports, no references to anything outside its own body, only standard JavaScript
 * (no Node APIs, no `crypto`, no `TextEncoder`, no `BigInt`). The sandbox injects its compiled source text
 * (`createModuleSdk.toString()`) into QuickJS, so the sandboxed and the native SDK are the same code and give the same
 * numbers, strings and hashes. Keep it that way when editing.
 *
 * - `random(seed)`: mulberry32 over the seed's low 32 bits.
 * - `now`: τ²-bench's fixed current time, `2024-05-15T15:00:00` (as the airline tools use it).
 * - `canonical(value)`: JSON with object keys sorted by code unit, no whitespace; `undefined` members are dropped and
 *   non-finite numbers become `null`, as `JSON.stringify` does.
 * - `hash(value)`: FNV-1a 64-bit over the UTF-8 bytes of `canonical(value)`, 16 lowercase hex digits.
 */
export function createModuleSdk(): ModuleSdk {
  function random(seed: number) {
    let state = seed >>> 0;
    const next = (): number => {
      state = (state + 0x6d2b79f5) >>> 0;
      let mixed = state;
      mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
      mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
      return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
    };
    const int = (min: number, max: number): number => {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) throw new RangeError(`random.int: bad range [${min}, ${max}]`);
      return min + Math.floor(next() * (max - min + 1));
    };
    function pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("random.pick: no items");
      return items[int(0, items.length - 1)] as T;
    }
    function shuffle<T>(items: readonly T[]): T[] {
      const copy = items.slice();
      for (let index = copy.length - 1; index > 0; index -= 1) {
        const other = int(0, index);
        const held = copy[index] as T;
        copy[index] = copy[other] as T;
        copy[other] = held;
      }
      return copy;
    }
    return { next, int, pick, shuffle };
  }

  function canonical(value: unknown): string {
    if (value === null || typeof value !== "object") {
      const text = JSON.stringify(value);
      return text === undefined ? "null" : text;
    }
    if (Array.isArray(value)) return `[${value.map((item) => canonical(item === undefined ? null : item)).join(",")}]`;
    const record = value as { [key: string]: unknown };
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const member = record[key];
      if (member === undefined || typeof member === "function") continue;
      members.push(`${JSON.stringify(key)}:${canonical(member)}`);
    }
    return `{${members.join(",")}}`;
  }

  function utf8Bytes(text: string): number[] {
    const bytes: number[] = [];
    for (const character of text) {
      const point = character.codePointAt(0) as number;
      if (point < 0x80) bytes.push(point);
      else if (point < 0x800) bytes.push(0xc0 | (point >> 6), 0x80 | (point & 0x3f));
      else if (point < 0x10000) bytes.push(0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
      else bytes.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
    }
    return bytes;
  }

  // FNV-1a 64-bit in four 16-bit limbs (least significant first); prime 0x100000001b3 = 2^40 + 0x1b3.
  function hash(value: unknown): string {
    const limbs = [0x2325, 0x8422, 0x9ce4, 0xcbf2];
    for (const byte of utf8Bytes(canonical(value))) {
      limbs[0] = (limbs[0] as number) ^ byte;
      const [a, b, c, d] = limbs as [number, number, number, number];
      // (x * 0x1b3) + (x << 40), kept to 64 bits: x << 40 adds a << 8 into limb 2 and (a >> 8) + (b << 8) into limb 3.
      let carry = a * 0x1b3;
      const r0 = carry & 0xffff;
      carry = Math.floor(carry / 0x10000) + b * 0x1b3;
      const r1 = carry & 0xffff;
      carry = Math.floor(carry / 0x10000) + c * 0x1b3 + ((a << 8) & 0xffff);
      const r2 = carry & 0xffff;
      carry = Math.floor(carry / 0x10000) + d * 0x1b3 + (a >> 8) + ((b << 8) & 0xffff);
      limbs[0] = r0;
      limbs[1] = r1;
      limbs[2] = r2;
      limbs[3] = carry & 0xffff;
    }
    return limbs
      .slice()
      .reverse()
      .map((limb) => limb.toString(16).padStart(4, "0"))
      .join("");
  }

  return { random, now: "2024-05-15T15:00:00", canonical, hash };
}
