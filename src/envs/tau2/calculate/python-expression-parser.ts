/**
 * A parser for the expressions `calculate` admits that follows CPython 3.11's PEG grammar closely enough to report the
 * same syntax errors: a first pass with the ordinary rules, then (on failure) a second pass with the `invalid_*` rules
 * that produce messages such as "invalid syntax. Perhaps you forgot a comma?". Tokens are fetched lazily and in the
 * same places, because fetching the end inside parentheses raises "'(' was never closed" at that moment.
 */
import { PythonRuntimeError, PythonSyntaxError } from "./python-errors.js";
import { firstTokenizerError, PythonTokenStream } from "./python-expression-tokens.js";

/** The syntax tree of an expression. */
export type PythonExpression =
  | { kind: "number"; text: string }
  | { kind: "ellipsis" }
  | { kind: "empty-tuple" }
  | { kind: "unary"; operator: "+" | "-"; operand: PythonExpression }
  | { kind: "binary"; operator: "+" | "-" | "*" | "/" | "//" | "**"; left: PythonExpression; right: PythonExpression }
  | { kind: "call"; callee: PythonExpression; argument: PythonArgument | undefined };

/** The single argument a call can have without commas. */
export interface PythonArgument {
  kind: "positional" | "star" | "double-star";
  value: PythonExpression;
}

/** CPython's parser `MAXSTACK`: deeper rule nesting raises a MemoryError with an empty message. */
const MAXIMUM_PARSER_DEPTH = 6000;
/**
 * Nesting depth at which compiling the tree raises RecursionError. CPython's limit is three times the recursion
 * limit left at the `eval` call, which depends on the caller's stack; this is τ²'s value to within a few dozen.
 */
const MAXIMUM_TREE_DEPTH = 2900;

interface Parsed<Node> {
  node: Node;
  end: number;
}

/** Parses `source` as `eval()` would, throwing `PythonSyntaxError` with CPython's message. */
export function parsePythonExpression(source: string): PythonExpression {
  if (source.trim() === "") throw new PythonSyntaxError("invalid syntax", 0);
  const tokenizerError = firstTokenizerError(source);
  if (tokenizerError !== undefined) throw tokenizerError;
  const stream = new PythonTokenStream(source);
  const parsed = new PegParser(stream, false).evalInput();
  if (parsed !== null) {
    const hugeLiteral = /(?<![\d.])\d{4301,}(?![\d.])/.exec(source);
    if (hugeLiteral !== null) {
      throw new PythonSyntaxError(
        `Exceeds the limit (4300 digits) for integer string conversion: value has ${hugeLiteral[0].length} digits; ` +
          "use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to " +
          "avoid decimal conversion limits.",
      );
    }
    if (treeDepth(parsed) > MAXIMUM_TREE_DEPTH) {
      throw new PythonRuntimeError("RecursionError", "maximum recursion depth exceeded during compilation");
    }
    return parsed;
  }
  new PegParser(stream, true).evalInput();
  throw new PythonSyntaxError("invalid syntax");
}

/** Depth of the syntax tree, without recursion (trees can be thousands of levels deep). */
function treeDepth(root: PythonExpression): number {
  let deepest = 0;
  const pending: [PythonExpression, number][] = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    deepest = Math.max(deepest, depth);
    if (node.kind === "unary") pending.push([node.operand, depth + 1]);
    if (node.kind === "binary") pending.push([node.left, depth + 1], [node.right, depth + 1]);
    if (node.kind === "call") {
      pending.push([node.callee, depth + 1]);
      if (node.argument !== undefined) pending.push([node.argument.value, depth + 1]);
    }
  }
  return deepest;
}

/** Applies prefix signs, innermost last: `-+x` is `-(+x)`. */
function withSigns(signs: readonly ("+" | "-")[], operand: PythonExpression): PythonExpression {
  let node = operand;
  for (let index = signs.length - 1; index >= 0; index--) {
    node = { kind: "unary", operator: signs[index] as "+" | "-", operand: node };
  }
  return node;
}

class PegParser {
  /** Rules on CPython's parser stack: `eval` down to `term` sit above the first `factor`. */
  private depth = 12;
  /** Results per rule, position and mode: without them nested parentheses take exponential time. */
  private readonly memo = new Map<string, unknown>();

  constructor(
    private readonly stream: PythonTokenStream,
    private invalidRules: boolean,
  ) {}

  private memoized<Result>(rule: string, start: number, parse: () => Result): Result {
    const key = `${rule} ${start} ${this.invalidRules}`;
    if (this.memo.has(key)) return this.memo.get(key) as Result;
    const result = parse();
    this.memo.set(key, result);
    return result;
  }

  private is(index: number, text: string): boolean {
    return this.stream.isOperator(index, text);
  }

  /** `eval: expressions NEWLINE* ENDMARKER` (no commas can occur, so `expressions` is one expression). */
  evalInput(): PythonExpression | null {
    const expression = this.expression(0);
    if (expression === null) return null;
    let index = expression.end;
    this.is(index, ",");
    while (this.stream.token(index).kind === "newline") index++;
    return this.stream.token(index).kind === "end" ? expression.node : null;
  }

  /** `expression: invalid_expression | disjunction 'if' … | disjunction | lambdef`. */
  private expression(start: number): Parsed<PythonExpression> | null {
    return this.memoized("expression", start, (): Parsed<PythonExpression> | null => {
      if (this.invalidRules) this.invalidExpression(start);
      const disjunction = this.disjunction(start);
      if (disjunction !== null) this.stream.token(disjunction.end); // 'if'
      return disjunction;
    });
  }

  /** `invalid_expression: a=disjunction b=expression_without_invalid` inside brackets → "Perhaps you forgot a comma?". */
  private invalidExpression(start: number): void {
    const first = this.disjunction(start);
    if (first === null) return;
    const second = this.withoutInvalidRules(() => this.expression(first.end));
    if (second !== null && this.stream.token(second.end - 1).level > 0) {
      throw new PythonSyntaxError("invalid syntax. Perhaps you forgot a comma?");
    }
  }

  private withoutInvalidRules<Result>(parse: () => Result): Result {
    const previous = this.invalidRules;
    this.invalidRules = false;
    try {
      return parse();
    } finally {
      this.invalidRules = previous;
    }
  }

  /** `disjunction` down to `shift_expr`: none of their operators can occur, so each is a `sum`. */
  private disjunction(start: number): Parsed<PythonExpression> | null {
    return this.sum(start);
  }

  /** `sum: sum '+' term | sum '-' term | term`. */
  private sum(start: number): Parsed<PythonExpression> | null {
    return this.memoized("sum", start, (): Parsed<PythonExpression> | null => {
      let result = this.term(start);
      while (result !== null) {
        const operator = this.stream.token(result.end).text;
        if (this.stream.token(result.end).kind !== "operator" || (operator !== "+" && operator !== "-")) break;
        const right = this.term(result.end + 1);
        if (right === null) break;
        result = { node: { kind: "binary", operator, left: result.node, right: right.node }, end: right.end };
      }
      return result;
    });
  }

  /** `term: term ('*' | '/' | '//' | '%' | '@') factor | factor`. */
  private term(start: number): Parsed<PythonExpression> | null {
    return this.memoized("term", start, (): Parsed<PythonExpression> | null => {
      let result = this.factor(start);
      while (result !== null) {
        const token = this.stream.token(result.end);
        const operator = token.text;
        if (token.kind !== "operator" || (operator !== "*" && operator !== "/" && operator !== "//")) break;
        const right = this.factor(result.end + 1);
        if (right === null) break;
        result = { node: { kind: "binary", operator, left: result.node, right: right.node }, end: right.end };
      }
      return result;
    });
  }

  /**
   * `factor: '+' factor | '-' factor | '~' factor | power` with `power: await_primary '**' factor | await_primary`,
   * parsed as one loop because chains of signs and right-associative `**` can nest thousands deep, beyond
   * JavaScript's stack. Each sign and each link counts towards CPython's parser stack limit.
   */
  private factor(start: number): Parsed<PythonExpression> | null {
    return this.memoized("factor", start, (): Parsed<PythonExpression> | null => {
      const outerDepth = this.depth;
      try {
        return this.factorChain(start);
      } finally {
        this.depth = outerDepth;
      }
    });
  }

  private factorChain(start: number): Parsed<PythonExpression> | null {
    const links: { signs: ("+" | "-")[]; base: Parsed<PythonExpression> }[] = [];
    let position = start;
    for (;;) {
      const signs: ("+" | "-")[] = [];
      for (let token = this.stream.token(position); ; token = this.stream.token(position)) {
        if (token.kind !== "operator" || (token.text !== "+" && token.text !== "-")) break;
        signs.push(token.text);
        position++;
      }
      this.depth += signs.length + 2; // the factors for the signs, then `factor` and `power`
      if (this.depth > MAXIMUM_PARSER_DEPTH) throw new PythonRuntimeError("MemoryError", "");
      const base = this.primary(position);
      if (base === null) break; // this factor fails: the previous `power` ends at its primary
      links.push({ signs, base });
      if (!this.is(base.end, "**")) break;
      position = base.end + 1;
    }
    const last = links.at(-1);
    if (last === undefined) return null;
    let node = withSigns(last.signs, last.base.node);
    for (let index = links.length - 2; index >= 0; index--) {
      const link = links[index] as (typeof links)[number];
      node = withSigns(link.signs, { kind: "binary", operator: "**", left: link.base.node, right: node });
    }
    return { node, end: last.base.end };
  }

  /** `primary: primary '.' NAME | primary genexp | primary '(' [arguments] ')' | primary '[' slices ']' | atom`. */
  private primary(start: number): Parsed<PythonExpression> | null {
    return this.memoized("primary", start, (): Parsed<PythonExpression> | null => {
      let result = this.atom(start);
      while (result !== null) {
        const end: number = result.end;
        if (this.is(end, ".")) this.stream.token(end + 1); // NAME
        if (!this.is(end, "(")) break;
        this.generatorExpression(end);
        const argument = this.arguments(end + 1);
        const close = argument === null ? end + 1 : argument.end;
        if (!this.is(close, ")")) break;
        result = { node: { kind: "call", callee: result.node, argument: argument?.node }, end: close + 1 };
      }
      return result;
    });
  }

  /** `atom`: a number, `(…)` (tuple | group | genexp) or `...`. */
  private atom(start: number): Parsed<PythonExpression> | null {
    return this.memoized("atom", start, (): Parsed<PythonExpression> | null => {
      const token = this.stream.token(start);
      if (token.kind === "number") return { node: { kind: "number", text: token.text }, end: start + 1 };
      if (token.kind !== "operator") return null;
      if (token.text === "...") return { node: { kind: "ellipsis" }, end: start + 1 };
      if (token.text !== "(") return null;
      return this.tuple(start) ?? this.group(start) ?? this.generatorExpression(start);
    });
  }

  /** `tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'`: only `()` can succeed. */
  private tuple(start: number): Parsed<PythonExpression> | null {
    return this.memoized("tuple", start, (): Parsed<PythonExpression> | null => {
      if (!this.is(start, "(")) return null;
      const first = this.starNamedExpression(start + 1);
      if (first !== null) this.is(first.end, ",");
      if (!this.is(start + 1, ")")) return null;
      return { node: { kind: "empty-tuple" }, end: start + 2 };
    });
  }

  /** `group: '(' (yield_expr | named_expression) ')' | invalid_group`. */
  private group(start: number): Parsed<PythonExpression> | null {
    return this.memoized("group", start, (): Parsed<PythonExpression> | null => {
      if (!this.is(start, "(")) return null;
      const inner = this.namedExpression(start + 1);
      if (inner !== null && this.is(inner.end, ")")) return { node: inner.node, end: inner.end + 1 };
      if (this.invalidRules) this.invalidGroup(start);
      return null;
    });
  }

  /** `invalid_group: '(' starred_expression ')' | '(' '**' expression ')'`. */
  private invalidGroup(start: number): void {
    const starred = this.starredExpression(start + 1);
    if (starred !== null && this.is(starred.end, ")")) throw new PythonSyntaxError("cannot use starred expression here");
    if (this.is(start + 1, "**")) {
      const expression = this.expression(start + 2);
      if (expression !== null && this.is(expression.end, ")")) {
        throw new PythonSyntaxError("cannot use double starred expression here");
      }
    }
  }

  /** `genexp: '(' (assignment_expression | expression !':=') for_if_clauses ')'`: never matches (no `for`). */
  private generatorExpression(start: number): null {
    return this.memoized("generatorExpression", start, (): null => {
      if (!this.is(start, "(")) return null;
      const inner = this.expression(start + 1);
      if (inner !== null) this.stream.token(inner.end); // ':=' / 'for'
      if (this.invalidRules) {
        const starred = this.starredExpression(start + 1);
        if (starred !== null) this.stream.token(starred.end); // 'for'
      }
      return null;
    });
  }

  /** `named_expression: assignment_expression | invalid_named_expression | expression !':='`. */
  private namedExpression(start: number): Parsed<PythonExpression> | null {
    return this.memoized("namedExpression", start, (): Parsed<PythonExpression> | null => {
      if (this.invalidRules) this.invalidNamedExpression(start);
      const expression = this.expression(start);
      if (expression !== null) this.stream.token(expression.end); // ':='
      return expression;
    });
  }

  /** `invalid_named_expression`: its alternatives all need `:=` or `=`, but they parse (and fetch) on the way. */
  private invalidNamedExpression(start: number): void {
    const expression = this.expression(start);
    if (expression !== null) this.stream.token(expression.end); // ':='
    if (this.tuple(start) !== null) return;
    this.generatorExpression(start);
    const bitwiseOr = this.disjunction(start);
    if (bitwiseOr !== null) this.stream.token(bitwiseOr.end); // '='
  }

  /** `star_named_expression: '*' bitwise_or | named_expression`. */
  private starNamedExpression(start: number): Parsed<PythonExpression> | null {
    return this.memoized("starNamedExpression", start, (): Parsed<PythonExpression> | null => {
      if (this.is(start, "*")) return this.disjunction(start + 1);
      return this.namedExpression(start);
    });
  }

  /** `starred_expression: '*' expression`. */
  private starredExpression(start: number): Parsed<PythonExpression> | null {
    return this.memoized("starredExpression", start, (): Parsed<PythonExpression> | null => {
      if (!this.is(start, "*")) return null;
      return this.expression(start + 1);
    });
  }

  /** `arguments: args [','] &')'` where `args` holds one positional, `*` or `**` argument. */
  private arguments(start: number): Parsed<PythonArgument> | null {
    return this.memoized("arguments", start, (): Parsed<PythonArgument> | null => {
      const argument = this.argument(start);
      if (argument === null || !this.is(argument.end, ")")) return null;
      return argument;
    });
  }

  private argument(start: number): Parsed<PythonArgument> | null {
    const starred = this.starredExpression(start);
    if (starred !== null) return { node: { kind: "star", value: starred.node }, end: starred.end };
    const positional = this.expression(start);
    if (positional !== null) {
      this.stream.token(positional.end); // ':=' / '=' / ','
      return { node: { kind: "positional", value: positional.node }, end: positional.end };
    }
    if (this.is(start, "**")) {
      const value = this.expression(start + 1);
      if (value !== null) return { node: { kind: "double-star", value: value.node }, end: value.end };
    }
    return null;
  }
}
