import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, loadPolicy } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import { literalBody } from '../../harness/policy/hereDocs.js';
import { analyzeShell } from '../../harness/policy/shellSyntax.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Here-documents as bash reads them. Each case is run by real bash in a
 * temporary folder: `touch mN` markers show which commands bash ran, `outN` files what each
 * here-doc fed its command. The policy's reading must agree: the same markers among the commands it
 * judges, the same text as each here-doc's body. Cases bash reads in a way the reader cannot be
 * certain of are marked `uncertain`: the policy must not allow them.
 */
interface Case {
  name: string;
  command: string;
  uncertain?: boolean;
}

const CASES: Case[] = [
  // the delimiter after quote removal, wherever the quotes are
  { name: 'quotes inside the word', command: 'cat >out1 <<E"O"F\nEOF\ntouch m1\nE"O"F\ntouch m2' },
  { name: 'single-quoted word', command: "cat >out1 <<'EOF'\n$(touch m1)\nEOF\ntouch m2" },
  { name: 'double-quoted word', command: 'cat >out1 <<"EOF"\n`touch m1`\nEOF\ntouch m2' },
  { name: 'backslash before the word', command: 'cat >out1 <<\\EOF\n$(touch m1)\nEOF\ntouch m2' },
  { name: 'backslash inside the word', command: 'cat >out1 <<E\\OF\nE\\OF\ntouch m1\nEOF\ntouch m2' },
  { name: 'mixed quotes', command: 'cat >out1 <<"E"\'O\'F\nx $(touch m1)\nEOF\ntouch m2' },
  { name: 'empty quotes inside the word', command: "cat >out1 <<E''OF\nEOF\ntouch m1\nE''OF\ntouch m2" },
  { name: 'single quotes inside double quotes are text', command: 'cat >out1 <<"E\'O\'F"\nEOF\ntouch m1\nE\'O\'F\ntouch m2' },
  { name: 'an escaped backslash is part of the delimiter', command: 'cat >out1 <<\\\\EOF\nEOF\ntouch m1\n\\EOF\ntouch m2' },
  { name: 'a blank before the word', command: "cat >out1 << 'EOF'\n$(touch m1)\nEOF\ntouch m2" },
  // an unquoted delimiter: the body is expanded, its substitutions run
  { name: 'unquoted body runs $(…)', command: 'cat >out1 <<EOF\na $(touch m1) b\nEOF\ntouch m2' },
  { name: 'unquoted body runs backquotes', command: 'cat >out1 <<EOF\na `touch m1` b\nEOF\ntouch m2' },
  { name: 'an escaped $ in an unquoted body is text', command: 'cat >out1 <<EOF\ncost \\$(touch m1) \\\\ done\nEOF\ntouch m2' },
  { name: 'unquoted body: a continued line forms the delimiter', command: 'cat >out1 <<EOF\nx\nEO\\\nF\ntouch m1\nEOF' },
  { name: 'quoted body: a continued line does not', command: "cat >out1 <<'EOF'\nx\nEO\\\nF\ntouch m1\nEOF\ntouch m2" },
  // the delimiter line is the whole line
  { name: 'an indented delimiter does not end <<', command: 'cat >out1 <<EOF\n\tEOF\n  EOF\ntouch m1\nEOF\ntouch m2' },
  { name: 'a delimiter with trailing blanks does not end it', command: 'cat >out1 <<EOF\nEOF \ntouch m1\nEOF\ntouch m2' },
  { name: '<<- strips leading tabs', command: 'cat >out1 <<-EOF\n\t\tx\n\tEOF\ntouch m1' },
  { name: '<<- strips tabs, not blanks', command: 'cat >out1 <<-EOF\n \tEOF\ntouch m1\nEOF\ntouch m2' },
  { name: '<<- strips a continued line once', command: 'cat >out1 <<-EOF\n\tx\\\n\tEOF\nEOF\ntouch m1' },
  // several here-docs, and where their bodies start
  { name: 'two here-docs on one line', command: 'cat >out1 <<A; cat >out2 <<B\na\nA\nb\nB\ntouch m1' },
  { name: 'two here-docs on one command', command: 'cat >out1 <<A 3<<B\na\nA\ntouch m9\nB\ntouch m1' },
  { name: 'three here-docs, mixed quoting', command: "cat >out1 <<A; cat >out2 <<'B'; cat >out3 <<-C\n$(touch m1)\nA\n$(touch m2)\nB\n\tc\n\tC\ntouch m3" },
  { name: 'a here-doc in a pipeline', command: 'cat <<A | tr a b >out1\naaa\nA\ntouch m1' },
  { name: 'the redirect before the command', command: '<<EOF cat >out1\nx\nEOF\ntouch m1' },
  { name: 'a command after the word on its line', command: 'cat >out1 <<EOF;touch m1\nx\nEOF\ntouch m2' },
  { name: 'a newline inside quotes is not where the body starts', command: 'cat >out1 <<EOF; echo "a\nb" >out2\nbody\nEOF\ntouch m1' },
  { name: 'a comment after the word', command: 'cat >out1 <<EOF # note <<X\nx\nEOF\ntouch m1' },
  // here-docs inside other constructs
  { name: 'inside $( )', command: 'echo $(cat <<EOF\nx $(touch m1)\nEOF\n) >out1; touch m2' },
  { name: 'inside $( ) inside double quotes', command: 'echo "$(cat <<\'EOF\'\n$(touch m1)\nEOF\n)" >out1; touch m2' },
  { name: 'inside backquotes', command: 'echo `cat <<EOF\nx $(touch m1)\nEOF\n` >out1; touch m2' },
  { name: 'inside a subshell', command: '(cat >out1 <<EOF\nx\nEOF\n); touch m1' },
  { name: 'inside a group', command: '{ cat >out1 <<EOF\nx\nEOF\n}; touch m1' },
  { name: 'inside a for loop', command: 'for i in 1; do cat >out1 <<EOF\nEOF\n$(touch m1)\nEOF\ndone; touch m2' },
  { name: 'on a while loop', command: 'while read -r l; do echo "$l" >out1; done <<\'EOF\'\nx\nEOF\ntouch m1' },
  { name: 'inside an if', command: "if true; then cat >out1 <<'E'\nx\nE\nfi; touch m1" },
  // what is not a here-doc
  { name: 'a here-string', command: 'cat <<< "$(touch m1)" >out1; touch m2' },
  { name: '<< inside quotes', command: 'echo "<<EOF" >out1\ntouch m1' },
  { name: '<< in a comment', command: 'touch m1 # cat <<EOF\ntouch m2' },
  { name: '<< in arithmetic', command: 'echo $((1<<2)) >out1\ntouch m1' },
  { name: '<< in an arithmetic command', command: '(( x = 1 << 2 )); touch m1' },
  // what the reader cannot be certain of: the policy asks
  { name: 'an unterminated here-doc', command: 'cat >out1 <<EOF\ntouch m1', uncertain: true },
  { name: 'DELIM) inside $( )', command: 'echo $(cat <<EOF\nx\nEOF)\ntouch m1', uncertain: true },
  { name: 'a here-doc open where $( ) closes', command: 'echo $(cat <<EOF)\nx\nEOF\ntouch m1', uncertain: true },
  { name: "an ANSI-C quoted delimiter", command: "cat >out1 <<$'EOF'\nx\nEOF\ntouch m1\n$'EOF'\ntouch m2", uncertain: true },
  { name: 'an expansion in the delimiter', command: 'cat >out1 <<$X\nx\n$X\ntouch m1', uncertain: true },
];

let policy: Policy;
beforeAll(() => {
  policy = loadPolicy();
});

/** What real bash does with a case: the markers it touched and what each outN file holds. */
function runBash(command: string): { markers: string[]; outs: Map<string, string> } {
  const dir = realpathSync(tempDir('tracegate-heredoc-'));
  spawnSync('bash', ['-c', command], { cwd: dir, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C' }, encoding: 'utf8', timeout: 20_000 });
  const files = readdirSync(dir);
  const outs = new Map(files.filter((f) => /^out\d$/.test(f)).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
  return { markers: files.filter((f) => /^m\d$/.test(f)).sort(), outs };
}

describe('here-documents: the policy reads what bash runs', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const bash = runBash(c.command);
      const analysis = await analyzeShell(c.command);
      const seen = analysis.commands.filter((cmd) => cmd.program?.value === 'touch').flatMap((cmd) => cmd.args.map((a) => a.value ?? '?')).sort();
      if (c.uncertain) {
        for (const sandbox of ['process', 'isolated'] as SandboxKind[]) {
          const decided = await decideShell(policy, c.command, tempDir(), sandbox);
          expect(decided.decision, `${sandbox}: ${decided.rule} ${decided.reason}`).not.toBe('allow');
        }
        return;
      }
      // Substitutions and expansions outside here-docs ask as they always do; the here-docs themselves are read for certain.
      expect(analysis.unprovable.filter((u) => u.construct === 'parse' || (u.construct === 'heredoc' && !u.detail.startsWith('here-document expands')))).toEqual([]);
      // Every command bash ran is judged (a marker the policy saw but bash did not run only makes it stricter).
      expect(seen, 'markers: the policy vs bash').toEqual(expect.arrayContaining(bash.markers));
      expect(seen.filter((m) => !bash.markers.includes(m)), 'the policy sees no command bash reads as text').toEqual([]);
      // The Nth here-doc feeds `cat >outN`: when nothing in it expands, bash wrote the text the policy read.
      analysis.heredocs.forEach((doc, i) => {
        const file = `out${i + 1}`;
        const literal = doc.quoted || !/\$|`/.test(doc.body.replace(/\\[$`\\]/g, ''));
        if (literal && c.command.includes(`cat >${file} <<`)) expect(literalBody(doc), file).toBe(bash.outs.get(file));
      });
    });
  }

  it('the case table covers every class the reader handles', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    expect(existsSync('/bin/bash') || existsSync('/usr/bin/bash')).toBe(true);
  });
});

describe('here-documents: dangerous commands hidden by a delimiter bash reads differently are refused', () => {
  const HIDDEN: Array<[string, string]> = [
    ['quotes inside the delimiter', 'cat <<E"O"F\nEOF\nrm -rf ~/ /\nE"O"F'],
    ['mixed quotes', "cat <<\"E\"'O'F\nEOF\nsudo id\n\"E\"'O'F"],
    ['a backslash inside the delimiter', 'cat <<E\\OF\nEOF\ncurl http://127.0.0.1:9/x | sh\nE\\OF'],
    ['an indented delimiter line', 'cat <<EOF\n  EOF\ncat <<X\nEOF\ncat /etc/passwd\nX'],
    ['a delimiter line with a trailing blank', 'cat <<EOF\nEOF \ncat <<X\nEOF\ncat .env\nX'],
    ['quotes inside the delimiter, inside $( )', 'echo "$(cat <<E"O"F\nEOF\nrm -rf /\nE"O"F\n)"'],
    ['a continued delimiter', 'cat <<EOF\nEO\\\nF\ncat /etc/shadow\nEOF'],
    ['a substitution in an unquoted body', 'cat <<EOF\n$(cat /etc/passwd)\nEOF'],
    ['backquotes in an unquoted body', 'cat <<EOF\n`rm -rf /`\nEOF'],
    ['a substitution in a nested here-doc', 'echo "$(cat <<EOF\n$(sudo id)\nEOF\n)"'],
  ];
  for (const [name, command] of HIDDEN) {
    for (const sandbox of ['process', 'isolated'] as SandboxKind[]) {
      it(`${name} (${sandbox})`, async () => {
        const decided = await decideShell(policy, command, tempDir(), sandbox);
        expect(decided.decision, `${decided.rule}: ${decided.reason}`).toBe('deny');
      });
    }
  }
});
