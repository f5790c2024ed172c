import { existsSync } from 'node:fs';
import { AdapterConfigError } from '../schema/adapter.js';
import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import type { Task } from '../schema/task.js';

/** Where a run's rubric checks get their verdicts: a live judge (maybe recorded), its cassettes, or nowhere. */
export type JudgePlan =
  | { kind: 'live'; model: string; baseUrl: string; apiKey: string | undefined; keyEnv: string; record: string | undefined }
  | { kind: 'cassettes'; dir: string }
  | { kind: 'none' };

export interface JudgeFlags {
  judgeModel?: string | undefined;
  judgeBaseUrl?: string | undefined;
  judgeApiKeyEnv?: string | undefined;
  judgeCassettes?: string | undefined;
  judgeRecord?: string | undefined;
  apiKeyEnv: string;
}

/**
 * Which judge a run's rubric checks get, decided once: --judge-model (live, recorded with
 * --judge-record), else --judge-cassettes, else the suite header's judge_cassettes, else none. A task with a rubric check and no judge is bad
 * input naming the task's file and line, never a silent pass. Throws AdapterConfigError (exit 2).
 */
export function resolveJudgePlan(flags: JudgeFlags, env: Readonly<Record<string, string | undefined>>, tasks: readonly Task[], suiteCassettes: string | null = null): JudgePlan {
  const bad = (message: string): never => {
    throw new AdapterConfigError(message);
  };
  if (flags.judgeModel) {
    if (flags.judgeCassettes) bad('give --judge-model (a live judge) or --judge-cassettes (its recorded verdicts), not both');
    const baseUrl = flags.judgeBaseUrl || env['OPENAI_BASE_URL'] || RUN_DEFAULTS.openaiBaseUrl;
    let protocol = '';
    try {
      protocol = new URL(baseUrl).protocol;
    } catch {
      // not a URL
    }
    if (protocol !== 'http:' && protocol !== 'https:') bad(`--judge-base-url ${baseUrl}: not an http:// or https:// URL of an OpenAI-compatible endpoint`);
    const keyEnv = flags.judgeApiKeyEnv ?? flags.apiKeyEnv;
    const apiKey = env[keyEnv] || undefined;
    if (!apiKey && baseUrl === RUN_DEFAULTS.openaiBaseUrl) bad(`--judge-model: ${keyEnv} is not set, and api.openai.com needs a key; for a local judge pass --judge-base-url URL`);
    return { kind: 'live', model: flags.judgeModel, baseUrl, apiKey, keyEnv, record: flags.judgeRecord };
  }
  if (flags.judgeRecord) bad('--judge-record needs a live judge: pass --judge-model NAME');
  if (flags.judgeBaseUrl) bad('--judge-base-url needs --judge-model NAME');
  if (flags.judgeCassettes) {
    if (!existsSync(flags.judgeCassettes)) bad(`--judge-cassettes ${flags.judgeCassettes}: no such folder`);
    return { kind: 'cassettes', dir: flags.judgeCassettes };
  }
  // The header's folder was checked when the suite loaded (validate names it).
  if (suiteCassettes) return { kind: 'cassettes', dir: suiteCassettes };
  const graded = tasks.find((t) => t.checks.some((c) => c.type === 'rubric'));
  if (graded) bad(`${graded.source.file}:${graded.source.line}: task ${graded.id} has a rubric check, which needs a judge: pass --judge-model NAME (with --judge-base-url URL for a local endpoint), or --judge-cassettes DIR to replay recorded verdicts`);
  return { kind: 'none' };
}
