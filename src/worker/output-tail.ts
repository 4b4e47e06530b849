/** The last part of a process's output stream, kept for error messages. */
export class OutputTail {
  private text = "";

  constructor(readonly maxCharacters = 16_384) {}

  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > 2 * this.maxCharacters) this.text = this.text.slice(-this.maxCharacters);
  }

  /** At most `maxCharacters`, or the last `lines` lines of them when given. */
  toString(lines?: number): string {
    const tail = this.text.slice(-this.maxCharacters);
    if (lines === undefined) return tail;
    return tail.trimEnd().split("\n").slice(-lines).join("\n");
  }
}
