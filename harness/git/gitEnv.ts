import { packageFile } from '../../src/files/packageFiles.js';
import path from 'node:path';

/**
 * Git is dangerous only through configuration: a workspace's `.git/config`, `.gitattributes` and
 * hooks can make `git status` or `git diff` run programs. Every git the sandbox starts gets this
 * environment: no system or global config, no terminal prompt, and command-line-level overrides
 * (GIT_CONFIG_COUNT, the same precedence as `git -c`) for every key that names a program. Keys whose
 * names a repository chooses (diff/filter/merge drivers) are overridden at run time by the shim in
 * harness/git/bin/git, which also adds --no-ext-diff --no-textconv to diff, log and show.
 */
export const NEUTRAL_GIT_CONFIG: ReadonlyArray<readonly [key: string, value: string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['core.sshCommand', 'false'],
  ['core.gitProxy', ''],
  ['core.askPass', ''],
  ['core.alternateRefsCommand', ''],
  ['credential.helper', ''],
  ['diff.external', ''],
  // `git add -p` pipes its colored hunks through this program on a terminal: an identity filter.
  ['interactive.diffFilter', 'cat'],
  ['diff.tool', ''],
  ['merge.tool', ''],
  ['gpg.program', 'false'],
  ['gpg.ssh.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['gpg.ssh.defaultKeyCommand', ''],
  ['log.showSignature', 'false'],
  ['uploadpack.packObjectsHook', ''],
  ['protocol.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['core.untrackedCache', 'false'],
  ['safe.bareRepository', 'explicit'],
  // Files a repository could name outside the workspace whose lines git prints back
  // (`git check-attr -a KEY` shows an outside file's "KEY value" line): only the workspace's own.
  ['core.attributesFile', '/dev/null'],
  ['core.excludesFile', '/dev/null'],
  ['mailmap.file', '/dev/null'],
  ['blame.ignoreRevsFile', ''],
];

export function gitShimDir(): string {
  return packageFile('harness', 'git', 'bin');
}

/** The git part of a sandboxed command's environment. */
export function gitEnvironment(workspace: string): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    GIT_EDITOR: 'false',
    GIT_SSH_COMMAND: 'false',
    GIT_ASKPASS: 'false',
    GIT_ALLOW_PROTOCOL: 'file',
    GIT_OPTIONAL_LOCKS: '0',
    // A partial clone fetches missing objects from its remote, which may be another repository on this machine (git >= 2.45).
    GIT_NO_LAZY_FETCH: '1',
    // Repository discovery stops at the workspace: a workspace inside another checkout never sees it.
    GIT_CEILING_DIRECTORIES: path.dirname(workspace),
    TRACEGATE_WORKSPACE: workspace,
    GIT_CONFIG_COUNT: String(NEUTRAL_GIT_CONFIG.length),
  };
  NEUTRAL_GIT_CONFIG.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
