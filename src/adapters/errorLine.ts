/**
 * The one line that says why an agent died, read from its stderr as it streams (a long stack can
 * push it out of any tail): the head of the last stack trace — Node's `SomeError: message` above its
 * `    at …` frames, Python's last line of a `Traceback (most recent call last):` block — or else the
 * last line that reads as an error.
 */

/** An error line is kept whole up to this many characters (a hostile agent may print megabytes on one line). */
export const ERROR_LINE_MAX_CHARS = 2000;

/** `TypeError: x`, `MaxTurnsExceededError [x]: y`, `Uncaught Error: z`, `langgraph.errors.GraphRecursionError: …`. */
const JS_HEAD = /^\s*(?:Uncaught\s+)?(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?(?::\s|$)/;
const JS_FRAME = /^\s+at\s/;
const PY_TRACEBACK = /^Traceback \(most recent call last\):\s*$/;
const READS_AS_ERROR = /\b(error|exception|fatal|panic|traceback|failed)\b/i;

export class ErrorLineScanner {
  private partial = '';
  /** The head of the last stack trace seen. */
  private stackHead: string | null = null;
  /** The last line that reads as an error, for when no stack was printed. */
  private errorish: string | null = null;
  /** A JS error head not yet confirmed by a frame below it. */
  private candidate: string | null = null;
  private inTraceback = false;

  push(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop()!.slice(0, ERROR_LINE_MAX_CHARS);
    for (const line of lines) this.line(line.replace(/\r$/, ''));
  }

  /** The error line, once the stream ended. */
  finish(): string | null {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    return this.stackHead ?? this.errorish;
  }

  private line(raw: string): void {
    const line = raw.length > ERROR_LINE_MAX_CHARS ? raw.slice(0, ERROR_LINE_MAX_CHARS) : raw;
    if (line.trim() === '') return;
    if (PY_TRACEBACK.test(line)) {
      this.inTraceback = true;
      return;
    }
    // Python: frames are indented; the first line that is not ends the traceback and names the exception.
    if (this.inTraceback) {
      if (/^\s/.test(line)) return;
      this.inTraceback = false;
      this.stackHead = line.trim();
      return;
    }
    if (JS_FRAME.test(line)) {
      if (this.candidate) this.stackHead = this.candidate;
      this.candidate = null;
      return;
    }
    if (JS_HEAD.test(line)) this.candidate = line.trim();
    if (READS_AS_ERROR.test(line)) this.errorish = line.trim();
  }
}

/** The error line of a whole text (an HTTP agent's error body). */
export function errorLineOf(text: string): string | null {
  const scanner = new ErrorLineScanner();
  scanner.push(text);
  return scanner.finish();
}
