/**
 * Key order of `db.json` that `JSON.parse` loses. Product and item ids are 10-digit strings; those below 2^32 - 1
 * are array-index keys, which JavaScript objects enumerate first and ascending, whereas Python dicts keep file order.
 * Only `get_product_details` exposes that order (its `variants` dict; list results never depend on it since product
 * names are unique), so the order is read once from the file text and kept beside the frozen base.
 */
import type { DatabaseBase } from "../../core/copy-on-write-database.js";
import type { RetailTables } from "./database.js";

/** The file order of product ids and of each product's variant ids. */
export interface RetailFileOrder {
  productIds: readonly string[];
  variantIds: ReadonlyMap<string, readonly string[]>;
}

const orders = new WeakMap<object, RetailFileOrder>();

/** Remembers the key order of `databaseText` (the `db.json` that `base` was built from) for tool results. */
export function rememberFileOrder(base: DatabaseBase<RetailTables>, databaseText: string): void {
  orders.set(base, readFileOrder(databaseText));
}

/** The remembered file order for `base`, if any. */
export function fileOrder(base: DatabaseBase<RetailTables>): RetailFileOrder | undefined {
  return orders.get(base);
}

/**
 * `keys` in file order: ids the file order knows come first in that order, any others after them in their given
 * order. Without a file order, `keys` unchanged.
 */
export function inFileOrder(keys: readonly string[], known: readonly string[] | undefined): string[] {
  if (known === undefined) return [...keys];
  const present = new Set(keys);
  const seen = new Set<string>();
  const ordered = known.filter((key) => present.has(key) && !seen.has(key) && seen.add(key) !== undefined);
  return [...ordered, ...keys.filter((key) => !seen.has(key))];
}

/** Reads product and variant key order from the text of a valid retail `db.json`. */
export function readFileOrder(databaseText: string): RetailFileOrder {
  const scanner = new KeyOrderScanner(databaseText);
  const keyLists = scanner.scan((path) => (path.length === 1 && path[0] === "products") || isVariantsPath(path));
  const variantIds = new Map<string, readonly string[]>();
  for (const [path, keys] of keyLists) {
    if (isVariantsPath(path)) variantIds.set(path[1] as string, keys);
  }
  const products = keyLists.find(([path]) => path.length === 1);
  return { productIds: products?.[1] ?? [], variantIds };
}

function isVariantsPath(path: readonly string[]): boolean {
  return path.length === 3 && path[0] === "products" && path[2] === "variants";
}

/** Walks JSON text (already known to be valid) and collects the keys of chosen objects in text order. */
class KeyOrderScanner {
  private index = 0;
  private readonly found: [string[], string[]][] = [];

  constructor(private readonly text: string) {}

  scan(wanted: (path: readonly string[]) => boolean): [string[], string[]][] {
    this.value([], wanted);
    return this.found;
  }

  private skipWhitespace(): void {
    while (/\s/.test(this.text[this.index] ?? "")) this.index++;
  }

  private value(path: string[], wanted: (path: readonly string[]) => boolean): void {
    this.skipWhitespace();
    const char = this.text[this.index];
    if (char === "{") this.object(path, wanted);
    else if (char === "[") this.array(path, wanted);
    else if (char === '"') this.string();
    else while (this.index < this.text.length && !/[\s,\]}]/.test(this.text[this.index] as string)) this.index++;
  }

  private object(path: string[], wanted: (path: readonly string[]) => boolean): void {
    const keys: string[] = [];
    if (wanted(path)) this.found.push([path, keys]);
    this.index++;
    this.skipWhitespace();
    if (this.text[this.index] === "}") {
      this.index++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      const key = this.string();
      keys.push(key);
      this.skipWhitespace();
      this.index++; // ':'
      this.value([...path, key], wanted);
      this.skipWhitespace();
      const separator = this.text[this.index++];
      if (separator !== ",") return;
    }
  }

  private array(path: string[], wanted: (path: readonly string[]) => boolean): void {
    this.index++;
    this.skipWhitespace();
    if (this.text[this.index] === "]") {
      this.index++;
      return;
    }
    for (let position = 0; ; position++) {
      this.value([...path, String(position)], wanted);
      this.skipWhitespace();
      const separator = this.text[this.index++];
      if (separator !== ",") return;
    }
  }

  private string(): string {
    const start = this.index;
    this.index++;
    while (this.index < this.text.length && this.text[this.index] !== '"') {
      this.index += this.text[this.index] === "\\" ? 2 : 1;
    }
    this.index++;
    return JSON.parse(this.text.slice(start, this.index)) as string;
  }
}
