/**
 * Splits `--agent-cmd` into words the way a POSIX shell would (quotes, backslashes), without running
 * a shell: operators such as `|`, `;`, `>` or `$(...)` are refused rather than silently passed on.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else if (ch === '$' || ch === '`') throw new Error(`--agent-cmd: ${ch} inside double quotes would need a shell; tracegate runs no shell`);
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if ('|&;<>()$`'.includes(ch)) {
      throw new Error(`--agent-cmd: "${ch}" is shell syntax, and tracegate runs no shell; put the pipeline in a script and run that`);
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`--agent-cmd: unterminated ${quote} quote`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new Error('--agent-cmd: empty command');
  return words;
}
