/**
 * Here-documents read the way bash reads them, before the parser sees the command.
 *
 * tree-sitter-bash takes a here-doc's delimiter word literally (`<<E"O"F` waits for a line `E"O"F`,
 * bash for `EOF`), ends a body at an indented or space-trailed delimiter line, and cannot read two
 * here-docs on one line: every one of those lets the body hide commands bash runs. So this module is
 * the one reader of here-docs: it scans the command as bash's lexer does (quotes, escapes, comments,
 * substitutions, arithmetic), takes each `<<WORD`/`<<-WORD` operator, removes quotes from WORD,
 * reads the bodies at the next newline token, line by line, until a line equal to the delimiter
 * (leading tabs stripped for `<<-`, `\<newline>` joined when WORD is unquoted), and hands the parser
 * the command with each here-doc replaced by an input redirect from a placeholder word and its body
 * cut out. Whatever it cannot read with certainty is reported, and the policy asks.
 */

export interface HereDoc {
  /** The delimiter after quote removal. */
  delimiter: string;
  /** Some part of the delimiter word was quoted: the body is taken literally, not expanded. */
  quoted: boolean;
  /** The body as the command receives it before expansion (tabs stripped for `<<-`). */
  body: string;
}

export interface HereDocReading {
  /** The command with each here-doc replaced by `< PLACEHOLDER` and its body removed. */
  source: string;
  heredocs: HereDoc[];
  /** What could not be read with certainty (the policy asks). */
  uncertain: string[];
}

const PLACEHOLDER_PREFIX = '__tracegate_heredoc_';
const PLACEHOLDER = /^__tracegate_heredoc_(\d+)__$/;
/** bash's metacharacters: a word ends at one of them. */
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

export function heredocPlaceholder(index: number): string {
  return `${PLACEHOLDER_PREFIX}${index}__`;
}

/** The here-doc a placeholder word stands for, if it is one. */
export function heredocOf(word: string | null, heredocs: readonly HereDoc[]): HereDoc | undefined {
  const m = word === null ? null : PLACEHOLDER.exec(word);
  return m ? heredocs[Number(m[1])] : undefined;
}

interface Pending {
  index: number;
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
  /** How deep in substitutions the operator was: bodies must be read at the same depth. */
  depth: number;
}

class Scanner {
  out = '';
  i = 0;
  readonly pending: Pending[] = [];
  readonly heredocs: HereDoc[] = [];
  readonly uncertain: string[] = [];
  constructor(readonly src: string) {}

  doubt(why: string): void {
    if (!this.uncertain.includes(why)) this.uncertain.push(why);
  }

  /** Copies `n` characters of the source to the output. */
  copy(n = 1): void {
    this.out += this.src.slice(this.i, this.i + n);
    this.i += n;
  }

  /**
   * Command text: up to the end (depth 0) or the `)` that closes a substitution or subshell. `depth`
   * counts substitutions (a here-doc started in one must end in it); a subshell keeps its parent's.
   */
  command(depth: number, closer: ')' | null): void {
    const src = this.src;
    let wordStart = true;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === ')' && closer === ')') return;
      if (c === '\n') {
        this.copy();
        this.readBodies(depth);
        wordStart = true;
        continue;
      }
      if (c === '#' && wordStart) {
        while (this.i < src.length && src[this.i] !== '\n') this.copy();
        continue;
      }
      if (c === '\\') {
        this.copy(2);
        wordStart = false;
        continue;
      }
      if (c === "'") {
        this.singleQuoted();
        wordStart = false;
        continue;
      }
      if (c === '"') {
        this.copy();
        this.doubleQuoted(depth);
        wordStart = false;
        continue;
      }
      if (c === '`') {
        this.backquoted(depth, false);
        wordStart = false;
        continue;
      }
      if (c === '$') {
        this.dollar(depth);
        wordStart = false;
        continue;
      }
      if (c === '(' && src[this.i + 1] === '(' && wordStart) {
        this.arithmetic(2);
        wordStart = false;
        continue;
      }
      if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
        this.copy(2);
        this.nested(depth + 1);
        wordStart = false;
        continue;
      }
      if (c === '(') {
        this.copy();
        this.command(depth, ')');
        if (this.i < src.length) this.copy();
        wordStart = true;
        continue;
      }
      if (c === '<' && src.startsWith('<<<', this.i)) {
        this.copy(3);
        wordStart = true;
        continue;
      }
      if (c === '<' && src[this.i + 1] === '<') {
        this.operator(depth);
        wordStart = true;
        continue;
      }
      this.copy();
      wordStart = META.has(c);
    }
  }

  /** `$(…)` and `<(…)`: a command of its own, whose here-docs must end inside it. */
  nested(depth: number): void {
    const before = this.pending.length;
    this.command(depth, ')');
    if (this.pending.length > before && this.pending.slice(before).some((p) => p.depth >= depth)) {
      this.doubt('a here-document is still open where its command substitution ends');
      this.pending.length = before;
    }
    if (this.i < this.src.length) this.copy();
    else this.doubt('a command substitution is not closed');
  }

  dollar(depth: number): void {
    const src = this.src;
    const next = src[this.i + 1];
    if (next === '(' && src[this.i + 2] === '(') {
      this.copy();
      this.arithmetic(2);
    } else if (next === '(') {
      this.copy(2);
      this.nested(depth + 1);
    } else if (next === '{') {
      this.copy(2);
      this.braced(depth);
    } else if (next === "'") {
      this.copy();
      this.ansiQuoted();
    } else if (next === '"') {
      this.copy(2);
      this.doubleQuoted(depth);
    } else this.copy();
  }

  singleQuoted(): void {
    const end = this.src.indexOf("'", this.i + 1);
    if (end < 0) {
      this.doubt('a single quote is not closed');
      this.copy(this.src.length - this.i);
    } else this.copy(end + 1 - this.i);
  }

  ansiQuoted(): void {
    this.copy(); // the quote
    while (this.i < this.src.length && this.src[this.i] !== "'") this.copy(this.src[this.i] === '\\' ? 2 : 1);
    if (this.i < this.src.length) this.copy();
  }

  /** Inside "…" (after the opening quote): newlines are text, substitutions are commands. */
  doubleQuoted(depth: number): void {
    const src = this.src;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === '"') {
        this.copy();
        return;
      }
      if (c === '\\') this.copy(2);
      else if (c === '`') this.backquoted(depth, true);
      else if (c === '$') this.dollar(depth);
      else this.copy();
    }
    this.doubt('a double quote is not closed');
  }

  /** `${…}`: up to the matching brace; quotes and substitutions inside are read as such. */
  braced(depth: number): void {
    const src = this.src;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === '}') {
        this.copy();
        return;
      }
      if (c === '\\') this.copy(2);
      else if (c === "'") this.singleQuoted();
      else if (c === '"') {
        this.copy();
        this.doubleQuoted(depth);
      } else if (c === '`') this.backquoted(depth, false);
      else if (c === '$') this.dollar(depth);
      else this.copy();
    }
    this.doubt('a ${ expansion is not closed');
  }

  /** `((…))` / `$((…))` (at the first paren): `<<` in it is a shift, not a here-doc. */
  arithmetic(open: number): void {
    const src = this.src;
    this.copy(open);
    let parens = 0;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === ')' && parens === 0 && src[this.i + 1] === ')') {
        this.copy(2);
        return;
      }
      if (c === '(') parens++;
      else if (c === ')') parens--;
      if (c === '\n' || parens < 0) {
        // Not arithmetic after all (`$( (cmd) )`), or a newline bash would read bodies at: not certain.
        this.doubt('an arithmetic expression spans lines or is not closed as bash would read it');
      }
      if (c === '$' && src[this.i + 1] === '(' && src[this.i + 2] !== '(') {
        this.copy(2);
        this.nested(1);
        continue;
      }
      this.copy(c === '\\' ? 2 : 1);
    }
    this.doubt('an arithmetic expression is not closed');
  }

  /**
   * `` `…` ``: bash unescapes `\\`, `` \` `` and `\$` and parses the rest as a command. Copied as it
   * is unless it holds a here-doc; then its text is read as a command and passed on as `$(…)`.
   */
  backquoted(depth: number, inDoubleQuotes: boolean): void {
    const src = this.src;
    let j = this.i + 1;
    let inner = '';
    while (j < src.length && src[j] !== '`') {
      if (src[j] === '\\' && j + 1 < src.length) {
        const n = src[j + 1]!;
        inner += n === '\\' || n === '`' || n === '$' || (inDoubleQuotes && n === '"') ? n : `\\${n}`;
        j += 2;
      } else inner += src[j++];
    }
    if (j >= src.length) {
      this.doubt('a backquote is not closed');
      this.copy(src.length - this.i);
      return;
    }
    if (!inner.includes('<<')) {
      this.copy(j + 1 - this.i);
      return;
    }
    const sub = new Scanner(inner);
    sub.heredocs.push(...this.heredocs);
    sub.command(depth + 1, null);
    if (sub.pending.length > 0) sub.doubt('a here-document is still open where its backquoted command ends');
    this.heredocs.splice(0, this.heredocs.length, ...sub.heredocs);
    for (const u of sub.uncertain) this.doubt(u);
    if (sub.out.includes('`')) this.doubt('a backquoted command with a here-document holds another backquote');
    this.out += `$(${sub.out}\n)`;
    this.i = j + 1;
  }

  /**
   * At `<<`: reads `-` and the delimiter word, leaves `< PLACEHOLDER` in its place (the parser reads
   * an input redirect wherever one may stand; it loses a here-string that follows another redirect).
   */
  operator(depth: number): void {
    const src = this.src;
    let j = this.i + 2;
    const stripTabs = src[j] === '-';
    if (stripTabs) j++;
    while (src[j] === ' ' || src[j] === '\t') j++;
    const word = delimiterWord(src, j);
    if (word.uncertain) this.doubt(word.uncertain);
    if (word.end === j) {
      this.doubt('a here-document has no delimiter word');
      this.copy(j - this.i);
      return;
    }
    const index = this.heredocs.length;
    this.heredocs.push({ delimiter: word.delimiter, quoted: word.quoted, body: '' });
    this.pending.push({ index, delimiter: word.delimiter, quoted: word.quoted, stripTabs, depth });
    this.out += `< ${heredocPlaceholder(index)}`;
    this.i = word.end;
  }

  /** At a newline token: every pending here-doc reads its body, in order, line by line. */
  readBodies(depth: number): void {
    const src = this.src;
    while (this.pending.length > 0) {
      const doc = this.pending.shift()!;
      if (doc.depth !== depth) this.doubt('a here-document body starts inside another command substitution');
      let body = '';
      let closed = false;
      while (this.i < src.length) {
        let line = '';
        // An unquoted here-doc's `\<newline>` joins lines before the delimiter is looked for (`EO\`+`F` ends it).
        for (;;) {
          const nl = src.indexOf('\n', this.i);
          const physical = nl < 0 ? src.slice(this.i) : src.slice(this.i, nl);
          this.i = nl < 0 ? src.length : nl + 1;
          // `<<-` strips the tabs that start a line as bash reads it (continued lines are one line).
          const stripped = doc.stripTabs && line === '' ? physical.replace(/^\t+/, '') : physical;
          const trailing = /\\*$/.exec(stripped)![0].length;
          if (!doc.quoted && trailing % 2 === 1 && nl >= 0) {
            line += stripped.slice(0, -1);
            continue;
          }
          line += nl >= 0 ? `${stripped}\n` : stripped;
          break;
        }
        const text = line.endsWith('\n') ? line.slice(0, -1) : line;
        if (text === doc.delimiter) {
          closed = true;
          break;
        }
        // Inside `$(…)` bash also ends a body at `DELIM)`; what follows is not read with certainty here.
        if (depth > 0 && text.startsWith(doc.delimiter) && text !== doc.delimiter) this.doubt(`a here-document line starts with its delimiter ${doc.delimiter} inside a command substitution`);
        body += line;
      }
      if (!closed) this.doubt(`the here-document ending at ${doc.delimiter} is not closed`);
      this.heredocs[doc.index]!.body = body;
    }
  }
}

/**
 * The delimiter word at `start`, after quote removal: `E"O"F`, `'EOF'`, `\EOF`, `E\OF`, `"E"'O'F`
 * are all `EOF`, quoted. bash performs no expansion on it: a `$` or a backquote in it is not read.
 */
function delimiterWord(src: string, start: number): { delimiter: string; quoted: boolean; end: number; uncertain?: string } {
  let delimiter = '';
  let quoted = false;
  let uncertain: string | undefined;
  let j = start;
  while (j < src.length && !META.has(src[j]!)) {
    const c = src[j]!;
    if (c === "'") {
      const end = src.indexOf("'", j + 1);
      if (end < 0) return { delimiter, quoted: true, end: src.length, uncertain: 'a here-document delimiter has an open quote' };
      delimiter += src.slice(j + 1, end);
      quoted = true;
      j = end + 1;
    } else if (c === '"') {
      quoted = true;
      j++;
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\' && '$`"\\\n'.includes(src[j + 1] ?? '')) j++;
        if (src[j] === '$' || src[j] === '`') uncertain = 'a here-document delimiter holds an expansion';
        delimiter += src[j++];
      }
      if (j >= src.length) return { delimiter, quoted, end: j, uncertain: 'a here-document delimiter has an open quote' };
      j++;
    } else if (c === '\\') {
      quoted = true;
      if (src[j + 1] === '\n') uncertain = 'a here-document delimiter is continued on the next line';
      delimiter += src[j + 1] ?? '';
      j += 2;
    } else {
      if (c === '$' || c === '`') uncertain = 'a here-document delimiter holds an expansion';
      delimiter += c;
      j++;
    }
  }
  if (delimiter === '' || delimiter.includes('\n')) uncertain ??= 'a here-document delimiter is empty or spans lines';
  return { delimiter, quoted, end: j, ...(uncertain ? { uncertain } : {}) };
}

/** Reads every here-doc in a command; see the module comment. */
export function readHereDocs(command: string): HereDocReading {
  const scanner = new Scanner(command);
  if (command.includes(PLACEHOLDER_PREFIX)) scanner.doubt('the command holds the here-document placeholder text');
  scanner.command(0, null);
  if (scanner.pending.length > 0) {
    scanner.doubt('a here-document has no body (the command ends on its line)');
  }
  return { source: scanner.out, heredocs: scanner.heredocs, uncertain: scanner.uncertain };
}

/**
 * The commands an unquoted body runs when bash expands it: the text of each `$(…)` and `` `…` ``
 * (backslash escapes applied), and whether anything else expands (`$NAME`, `${…}`, `$((…))`).
 */
export function bodyExpansions(body: string): { substitutions: string[]; expands: boolean } {
  const substitutions: string[] = [];
  let expands = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`') {
      let inner = '';
      let j = i + 1;
      while (j < body.length && body[j] !== '`') {
        if (body[j] === '\\' && '\\`$'.includes(body[j + 1] ?? '')) j++;
        inner += body[j++] ?? '';
      }
      substitutions.push(inner);
      expands = true;
      i = j;
      continue;
    }
    if (c !== '$') continue;
    const next = body[i + 1] ?? '';
    if (next === '(' && body[i + 2] !== '(') {
      const scanner = new Scanner(body.slice(i + 2));
      scanner.command(1, ')');
      substitutions.push(body.slice(i + 2, i + 2 + scanner.i));
      expands = true;
      i += 2 + scanner.i;
    } else if (/[A-Za-z_{(0-9@*#?$!-]/.test(next)) expands = true;
  }
  return { substitutions, expands };
}

/** The text an unquoted here-doc feeds its command when nothing in it expands (`\$`, `` \` ``, `\\` unescaped). */
export function literalBody(doc: HereDoc): string {
  return doc.quoted ? doc.body : doc.body.replace(/\\([$`\\])/g, '$1');
}
