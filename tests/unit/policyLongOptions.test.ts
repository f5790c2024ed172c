import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import { spellOutOptions } from '../../harness/policy/programs/longOptions.js';
import { OPTION_TABLES } from '../../harness/policy/programs/optionTables.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Abbreviated long options: GNU getopt_long takes any unambiguous prefix of a
 * long option, so `sort --comp=sh` is `--compress-program=sh`. The policy writes every option out in
 * full from one table per program before any rule or program check reads it; the table is checked
 * here against the programs themselves.
 */
let policy: Policy;
const SANDBOXES: SandboxKind[] = ['process', 'isolated'];
const word = (value: string) => ({ value, text: value, glob: false });

beforeAll(() => {
  policy = loadPolicy();
});

/** What the program's own parser says about `--NAME`: taken, ambiguous, or unknown. */
function parserReading(program: string, option: string): 'taken' | 'ambiguous' | 'unknown' {
  // A bogus option after it makes every program stop at once, with no input read.
  const r = spawnSync(program, [option, '--tracegate-no-such-option'], { input: '', encoding: 'utf8', timeout: 10_000, cwd: tempDir(), env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' } });
  const said = `${r.stdout}${r.stderr}`;
  const name = option.split('=')[0]!;
  if (said.includes(`option '${name}' is ambiguous`)) return 'ambiguous';
  if (said.includes(`unrecognized option '${option}'`) || said.includes(`unrecognized option '${name}'`)) return 'unknown';
  return 'taken';
}

describe('the option tables agree with each program\'s own parser', () => {
  const installed = Object.keys(OPTION_TABLES).filter((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0);

  it('covers the programs the policy reads', () => {
    expect(installed).toEqual(expect.arrayContaining(['sort', 'grep', 'sed', 'xargs', 'diff', 'env', 'cp', 'ls', 'du', 'stat', 'date', 'rm', 'timeout']));
  });

  for (const program of installed) {
    it(`${program}: the shortest prefix the table takes for each option is what ${program} takes, and the ambiguous ones it refuses`, () => {
      const entries = OPTION_TABLES[program]!.long.split(' ');
      const names = entries.flatMap((e) => e.replace(/=\??$/, '').split('|'));
      const wrong: string[] = [];
      for (const entry of entries) {
        const full = entry.replace(/=\??$/, '').split('|')[0]!;
        const value = entry.endsWith('=') || entry.endsWith('=?') ? '=1' : '';
        // The shortest prefix the table reads as this option.
        let prefix = full;
        for (let n = 1; n < full.length; n++) {
          const spelled = spellOutOptions(program, [word(`--${full.slice(0, n)}${value}`)]);
          if (spelled.ambiguous.length === 0 && spelled.args[0]!.value === `--${full}${value}`) {
            prefix = full.slice(0, n);
            break;
          }
        }
        if (parserReading(program, `--${prefix}${value}`) !== 'taken') wrong.push(`--${prefix} (${full}) not taken`);
        // One letter shorter is either another option's prefix (ambiguous), or nothing.
        const shorter = prefix.slice(0, -1);
        if (shorter !== '' && !names.includes(shorter)) {
          const table = spellOutOptions(program, [word(`--${shorter}`)]);
          const real = parserReading(program, `--${shorter}`);
          if (table.ambiguous.length > 0 && real !== 'ambiguous') wrong.push(`--${shorter}: table ambiguous, ${program} says ${real}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('spells out prefixes, keeps values and operands, and stops where the program stops reading options', () => {
    const spell = (program: string, ...args: string[]) => spellOutOptions(program, args.map(word)).args.map((a) => a.value);
    expect(spell('sort', '--comp=sh', 'f')).toEqual(['--compress-program=sh', 'f']);
    expect(spell('sort', '-k', '--comp', 'f', '--out', 'x')).toEqual(['-k', '--comp', 'f', '--output', 'x']);
    expect(spell('sort', '-o', '--comp', '--', '--comp')).toEqual(['-o', '--comp', '--', '--comp']);
    expect(spell('grep', '--dere', 'x', '.')).toEqual(['--dereference-recursive', 'x', '.']);
    expect(spell('grep', '--colo=never', 'x')).toEqual(['--color=never', 'x']);
    expect(spell('env', '--ch=/', 'sort', '--comp=sh')).toEqual(['--chdir=/', 'sort', '--comp=sh']);
    expect(spell('xargs', '--arg', 'list', 'sort', '--comp=sh')).toEqual(['--arg-file', 'list', 'sort', '--comp=sh']);
    expect(spellOutOptions('ls', [word('--deref')]).ambiguous[0]!.candidates).toEqual(expect.arrayContaining(['--dereference', '--dereference-command-line']));
  });
});

describe('abbreviated options are read as the options they are, against real processes', () => {
  let ws: string;
  let wsSecret: string;
  let outside: string;
  beforeAll(() => {
    const dir = realpathSync(tempDir('tracegate-longopt-'));
    ws = path.join(dir, 'ws');
    outside = path.join(dir, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'f'), 'OUTSIDE-MARK\n');
    symlinkSync(outside, path.join(ws, 'link'));
    writeFileSync(path.join(ws, 'data.txt'), 'touch marker-sort\n'.repeat(3000));
    // Recursive reads of a folder holding a secret are refused first under the process sandbox: a workspace of its own.
    wsSecret = path.join(dir, 'ws-secret');
    mkdirSync(wsSecret);
    writeFileSync(path.join(wsSecret, '.env'), 'TOKEN=ENV-MARK\n');
    writeFileSync(path.join(wsSecret, 'data.txt'), 'x\n');
  });

  it('sort --comp=sh runs a workspace file as shell code, and is refused', async () => {
    const command = 'sort -S 1K --comp=sh -T . data.txt > /dev/null';
    await runCommand(command, { workspace: ws, timeoutMs: 30_000, outputCap: 10_000, mode: 'process' });
    expect(existsSync(path.join(ws, 'marker-sort')), 'sort ran the file through sh').toBe(true);
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, command, ws, sandbox)).toMatchObject({ decision: 'deny', rule: 'dangerous-option' });
  });

  it('grep --dere follows a link out of the workspace, and is refused', async () => {
    const ran = await runCommand('grep --dere OUTSIDE-MARK .', { workspace: ws, timeoutMs: 30_000, outputCap: 10_000, mode: 'process' });
    expect(ran.output).toContain('OUTSIDE-MARK');
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, 'grep --dere OUTSIDE-MARK .', ws, sandbox)).toMatchObject({ decision: 'deny', rule: 'follows-symlinks' });
  });

  it.skipIf(!hasBubblewrap())('under bubblewrap too, the abbreviation does what the full option does', async () => {
    const ran = await runCommand('grep --dere -l OUTSIDE-MARK .; echo x | sort --comp=cat -S 1K >/dev/null && echo SORTED', { workspace: ws, timeoutMs: 30_000, outputCap: 10_000, mode: 'bwrap', secretPaths: policy.secret_paths });
    expect(ran.output).toContain('SORTED');
  });

  /** [command, the rule expected to decide it, the decision] under both sandboxes. */
  const CASES: Array<[string, string, 'deny' | 'require_approval']> = [
    ['sort --comp=sh data.txt', 'dangerous-option', 'deny'],
    ['sort --compress=sh data.txt', 'dangerous-option', 'deny'],
    ['sort --co sh data.txt', 'dangerous-option', 'deny'],
    ['sort data.txt --compress-p sh', 'dangerous-option', 'deny'],
    ['sort --files0=list', 'file-list-argument', 'require_approval'],
    ['wc --files0-f=list', 'file-list-argument', 'require_approval'],
    ['du --files0=list', 'file-list-argument', 'require_approval'],
    ['grep --dere x .', 'follows-symlinks', 'deny'],
    ['grep -n --deref x .', 'follows-symlinks', 'deny'],
    ['egrep --dereference-r x .', 'follows-symlinks', 'deny'],
    ['cp --derefer link copy', 'follows-symlinks', 'deny'],
    ['stat --deref link', 'follows-symlinks', 'deny'],
    ['file --der link', 'follows-symlinks', 'deny'],
    ['ls --deref data.txt', 'ambiguous-option', 'require_approval'],
    ['du --dere data.txt', 'ambiguous-option', 'require_approval'],
    ['rm --rec data.txt', 'recursive-delete', 'deny'],
    ['rm --forc data.txt', 'recursive-delete', 'deny'],
    ['rm --no-pres /', 'recursive-delete', 'deny'],
    ['date --se=2020-01-01', 'dangerous-option', 'deny'],
    ['date --s 2020-01-01', 'dangerous-option', 'deny'],
    ['date --r data.txt', 'ambiguous-option', 'require_approval'],
    ['sed --follow -i s/a/b/ data.txt', 'sed-follows-symlinks', 'deny'],
    ['sed --fo -i s/a/b/ data.txt', 'sed-follows-symlinks', 'deny'],
    ['sed -n --expr=1e\\ id data.txt', 'sed-executes', 'deny'],
    ['env --ch=/ cat etc/passwd', 'path-outside-workspace', 'deny'],
    ['env --ignore-e git status', 'git-outside-harness', 'deny'],
    ['env --ig cat data.txt', 'ambiguous-option', 'require_approval'],
    ['env --sp="cat /etc/passwd" data.txt', 'env-split-string', 'require_approval'],
    ['env --un=PATH git status', 'git-outside-harness', 'deny'],
    ['timeout --sig KILL 5 sort --comp=sh data.txt', 'dangerous-option', 'deny'],
    ['xargs --arg=list sort --comp=sh', 'dangerous-option', 'deny'],
    ['xargs --arg .env echo', 'secret-path', 'deny'],
    ['grep --dir=recurse TOKEN', 'recursive-secret-withheld', 'allow'],
    ['grep --recur TOKEN .', 'recursive-secret-withheld', 'allow'],
    ['cp --rec . copy', 'copies-outward-link', 'deny'],
    ['find . -exec sort --comp=sh data.txt \\;', 'dangerous-option', 'deny'],
    ['diff --rec link data.txt', 'follows-symlinks', 'deny'],
  ];
  for (const [command, rule, decision] of CASES) {
    it(command, async () => {
      for (const sandbox of SANDBOXES) {
        // An abbreviated -r is read as recursive: grep runs with the secret paths excluded (the grep wrapper).
        const secret = rule === 'recursive-secret-withheld' || command.includes('.env');
        const decided = await decideShell(policy, command, secret ? wsSecret : ws, sandbox);
        if (rule === 'recursive-secret-withheld' && sandbox === 'isolated') continue; // bubblewrap masks the secret
        expect(decided, `${sandbox}: ${decided.reason}`).toMatchObject({ decision, rule });
      }
    });
  }

  it('everyday spellings stay allowed', async () => {
    for (const command of ['sort --reverse --unique data.txt', 'sort --rev data.txt', 'grep --line-number --color=never touch data.txt', 'grep --colo=never -c touch data.txt', 'ls --all --human-readable', 'head --lines=3 data.txt', 'cut --fields=1 --delim=" " data.txt', 'wc --lines data.txt']) {
      for (const sandbox of SANDBOXES) {
        const decided = await decideShell(policy, command, ws, sandbox);
        expect(decided.decision, `${command} (${sandbox}): ${decided.rule} ${decided.reason}`).toBe('allow');
      }
    }
  });
});
