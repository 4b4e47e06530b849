/**
 * CPython's tokenizer restricted to the characters `calculate` admits (digits, `+ - * / ( ) .`, space): numbers, operators,
 * parentheses, `...`. Tokens are produced on demand, as the PEG parser fetches them, because the moment a token is
 * fetched decides which error CPython reports (an unclosed parenthesis is only noticed when the end is fetched).
 */
import { PythonSyntaxError } from "./python-errors.js";

/** One token: `number` (int or float literal), `operator` (including `(`, `)`, `.`, `...`), `newline`, `end`. */
export interface PythonToken {
  kind: "number" | "operator" | "newline" | "end";
  text: string;
  /** Parenthesis depth after this token, as CPython records it. */
  level: number;
}

const LEADING_ZEROS =
  "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers";
/** CPython's tokenizer `MAXLEVEL`. */
const MAXIMUM_NESTING = 200;
const NUMBER = /\d+\.?\d*|\.\d+/y;
const OPERATORS = ["...", "**", "//", "+", "-", "*", "/", "(", ")", "."];

/** Lazily tokenises one line of source; fetching past the end inside parentheses raises "'(' was never closed". */
export class PythonTokenStream {
  private readonly tokens: PythonToken[] = [];
  private position = 0;
  private level = 0;
  private finished = false;

  constructor(private readonly source: string) {}

  /** The token at `index`, fetching (and possibly raising) as CPython's parser would. */
  token(index: number): PythonToken {
    while (this.tokens.length <= index) {
      if (this.finished) return this.tokens[this.tokens.length - 1] as PythonToken;
      this.tokens.push(this.next());
    }
    return this.tokens[index] as PythonToken;
  }

  /** Whether the token at `index` is the operator `text`. */
  isOperator(index: number, text: string): boolean {
    const token = this.token(index);
    return token.kind === "operator" && token.text === text;
  }

  private next(): PythonToken {
    while (this.source[this.position] === " ") this.position++;
    if (this.position >= this.source.length) {
      if (this.level > 0) throw new PythonSyntaxError("'(' was never closed");
      if (this.tokens.at(-1)?.kind !== "newline") return { kind: "newline", text: "", level: 0 };
      this.finished = true;
      return { kind: "end", text: "", level: 0 };
    }
    NUMBER.lastIndex = this.position;
    const number = NUMBER.exec(this.source);
    if (number !== null) {
      const text = number[0];
      if (/^0+[1-9]\d*$/.test(text)) throw new PythonSyntaxError(LEADING_ZEROS);
      this.position += text.length;
      return { kind: "number", text, level: this.level };
    }
    const operator = OPERATORS.find((candidate) => this.source.startsWith(candidate, this.position));
    if (operator === undefined) throw new PythonSyntaxError("invalid syntax");
    if (operator === "(") {
      if (this.level >= MAXIMUM_NESTING) throw new PythonSyntaxError("too many nested parentheses");
      this.level++;
    }
    if (operator === ")") {
      if (this.level === 0) throw new PythonSyntaxError("unmatched ')'");
      this.level--;
    }
    this.position += operator.length;
    return { kind: "operator", text: operator, level: this.level };
  }
}

/**
 * The first error the tokenizer raises anywhere in `source` other than an unclosed parenthesis at the end: CPython
 * tokenises the rest of the source after a parser error and lets such an error replace the parser's.
 */
export function firstTokenizerError(source: string): PythonSyntaxError | undefined {
  const stream = new PythonTokenStream(source);
  try {
    for (let index = 0; stream.token(index).kind !== "end"; index++);
  } catch (error) {
    if (error instanceof PythonSyntaxError && error.reason !== "'(' was never closed") return error;
  }
  return undefined;
}
