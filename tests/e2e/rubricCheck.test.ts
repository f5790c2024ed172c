import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer, type ChatRequestBody } from '../helpers/openaiServer.js';

/**
 * The rubric check end to end: a scripted agent (its cassette) answers, a loopback OpenAI-compatible
 * judge grades the answer and is recorded; the replay, with the judge server stopped, gives the
 * same verdict and says it was replayed. A judge that fails is an error of the trial, not a failure.
 */
const RUBRIC = 'The answer names Paris as the capital of France.';

function fixture(answer = 'The capital of France is Paris.') {
  const dir = tempDir('tracegate-rubric-');
  const agent = path.join(dir, 'agent');
  mkdirSync(agent);
  const tasks = [
    { id: 'capital', prompt: 'What is the capital of France?', checks: [{ type: 'rubric', rubric: RUBRIC, include: ['answer', 'trajectory'] }, { type: 'contains', values: ['Paris'] }] },
  ];
  writeFileSync(path.join(dir, 'suite.jsonl'), tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  writeFileSync(
    path.join(agent, 'capital.json'),
    JSON.stringify({ schema_version: 'cassette/v1', kind: 'script', task_id: 'capital', model: 'scripted-agent', interactions: [{ response: { content: answer } }] }),
  );
  return { dir, suite: path.join(dir, 'suite.jsonl'), agent, judgeDir: path.join(dir, 'judge') };
}

/** A judge that passes an answer naming Paris, in the JSON the fixed prompt asks for. */
const judgeReply = (body: ChatRequestBody) => {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  const answer = /<answer[^>]*>([\s\S]*?)<\/answer>/.exec(user)?.[1] ?? '';
  const pass = /Paris/.test(answer);
  return { content: JSON.stringify({ reasoning: pass ? 'It names Paris.' : 'It does not name Paris.', score: pass ? 0.9 : 0.1, pass }) };
};

const report = (out: string) => JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe('rubric check', () => {
  it('records the judge live, then replays the same verdict from its cassette with the judge server stopped', async () => {
    const f = fixture();
    server = new FakeOpenAIServer(judgeReply);
    const base = await server.start();
    const live = path.join(f.dir, 'live');
    const r1 = await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-model', 'judge-m', '--judge-base-url', base, '--judge-record', f.judgeDir, '-o', live, '-q']);
    expect(r1.code, r1.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!.body;
    expect(sent.model).toBe('judge-m');
    expect(sent.messages[0]!.content).toMatch(/grade the work of an AI agent against a rubric/);
    expect(sent.messages[1]!.content).toContain(RUBRIC);
    const first = report(live);
    const liveCheck = first.tasks[0].checks.find((c: { type: string }) => c.type === 'rubric');
    expect(liveCheck).toMatchObject({ passed: true, judge_mode: 'live' });
    expect(liveCheck.reason).toMatch(/score 0\.9/);
    expect(first.run.judge).toMatchObject({ model: 'judge-m', mode: 'live', recording: true });
    expect(existsSync(path.join(f.judgeDir, 'capital.json'))).toBe(true);
    await server.stop();
    server = null;

    const replay = path.join(f.dir, 'replay');
    const r2 = await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-cassettes', f.judgeDir, '-o', replay, '-q']);
    expect(r2.code, r2.stderr).toBe(0);
    const second = report(replay);
    const replayed = second.tasks[0].checks.find((c: { type: string }) => c.type === 'rubric');
    expect(replayed).toMatchObject({ passed: true, judge_mode: 'replayed' });
    expect(replayed.reason).toMatch(/replayed from its cassette/);
    expect(replayed.reason.replace('replayed from its cassette', '')).toBe(liveCheck.reason.replace('asked live', ''));
    expect(second.run.judge).toMatchObject({ mode: 'replayed', base_url: null });
    expect(readFileSync(path.join(replay, 'summary.md'), 'utf8')).toMatch(/\*\*Judge:\*\* REPLAYED.* · rubric agrees with the rule checks on 1 of 1 trials \(100\.0%\)/);
    expect(second.summary.rubric_agreement).toEqual({ trials: 1, agree: 1, rate: 1, rubric_only_passed: 0, rules_only_passed: 0 });
  });

  it('counts where the judge and the rule checks disagree, in report.json, summary.md, the terminal and the HTML', async () => {
    const f = fixture('I think it is Lyon.');
    server = new FakeOpenAIServer(() => ({ content: JSON.stringify({ reasoning: 'Looks fine.', score: 1, pass: true }) }));
    const base = await server.start();
    const out = path.join(f.dir, 'out');
    const r = await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-model', 'lenient', '--judge-base-url', base, '--epochs', '2', '-o', out]);
    expect(r.code, r.stderr).toBe(1);
    const run = report(out);
    expect(run.summary.rubric_agreement).toEqual({ trials: 2, agree: 0, rate: 0, rubric_only_passed: 2, rules_only_passed: 0 });
    const line = 'rubric agrees with the rule checks on 0 of 2 trials (0.0%); the rubric alone passed 2, the rules alone 0';
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toContain(line);
    expect(r.stdout + r.stderr).toContain(line);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain(line);
    // The run's header, printed before the first trial, names the judge beside the model.
    const header = (r.stdout + r.stderr).split('\n');
    const judgeAt = header.findIndex((l) => l.startsWith(`  judge:   LIVE: lenient at ${base}`));
    expect(judgeAt, r.stderr).toBeGreaterThan(0);
    expect(judgeAt).toBeLessThan(header.findIndex((l) => /^\[1\/2\]/.test(l)));
  });

  it('compare grades both sides with one judge: --judge-record keeps both sides\' verdicts, which replay', async () => {
    const f = fixture();
    const lyon = path.join(f.dir, 'agent-b');
    mkdirSync(lyon);
    writeFileSync(path.join(lyon, 'capital.json'), JSON.stringify({ schema_version: 'cassette/v1', kind: 'script', task_id: 'capital', model: 'scripted-agent', interactions: [{ response: { content: 'It is Lyon.' } }] }));
    for (const [name, cassettes] of [['a', 'agent'], ['b', 'agent-b']]) writeFileSync(path.join(f.dir, `${name}.json`), JSON.stringify({ schema_version: 'variant/v1', name, cassettes }));
    const sides = ['--a', path.join(f.dir, 'a.json'), '--b', path.join(f.dir, 'b.json')];
    server = new FakeOpenAIServer(judgeReply);
    const base = await server.start();
    const live = path.join(f.dir, 'live');
    const r1 = await runCli(['compare', f.suite, ...sides, '--judge-model', 'judge-m', '--judge-base-url', base, '--judge-record', f.judgeDir, '-o', live, '-q', '--no-html']);
    expect(r1.code, r1.stderr).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(JSON.parse(readFileSync(path.join(f.judgeDir, 'capital.json'), 'utf8')).interactions).toHaveLength(2);
    await server.stop();
    server = null;
    const replay = path.join(f.dir, 'replay');
    const r2 = await runCli(['compare', f.suite, ...sides, '--judge-cassettes', f.judgeDir, '-o', replay, '-q', '--no-html']);
    expect(r2.code, r2.stderr).toBe(1);
    const rubricOf = (dir: string) => report(dir).tasks[0].checks.find((c: { type: string }) => c.type === 'rubric');
    expect(rubricOf(path.join(replay, 'a'))).toMatchObject({ passed: true, judge_mode: 'replayed' });
    expect(rubricOf(replay)).toMatchObject({ passed: false, judge_mode: 'replayed' });
  });

  it('fails the task when the judge grades the answer below the rubric (a failed rule check names the reason)', async () => {
    const f = fixture('I think it is Lyon.');
    server = new FakeOpenAIServer(judgeReply);
    const base = await server.start();
    const out = path.join(f.dir, 'out');
    const r = await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-model', 'judge-m', '--judge-base-url', base, '-o', out, '-q']);
    expect(r.code, r.stderr).toBe(1);
    const task = report(out).tasks[0];
    expect(task.status).toBe('failed');
    // The rule check (contains Paris) failed too: its reason is more precise than the judge's and wins.
    expect(task.failure_reason).toBe('FINAL_ANSWER_INCOMPLETE');
    expect(task.checks.find((c: { type: string }) => c.type === 'rubric')).toMatchObject({ passed: false });
  });

  it('a judge that answers 500 or garbage errors the trial (JUDGE_ERROR), never fails it', async () => {
    for (const reply of [() => ({ status: 500 }), () => ({ content: 'I would rather not say.' })]) {
      const f = fixture();
      server = new FakeOpenAIServer(reply);
      const base = await server.start();
      const out = path.join(f.dir, 'out');
      const r = await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-model', 'judge-m', '--judge-base-url', base, '--timeout', '3000', '-o', out, '-q']);
      expect(r.code, r.stderr).toBe(3);
      const task = report(out).tasks[0];
      expect(task.status).toBe('errored');
      expect(task.trials[0].error.code).toBe('JUDGE_ERROR');
      expect(task.trials[0].error.message).toMatch(/rubric check: the judge/);
      await server.stop();
      server = null;
    }
  });

  it('a rubric task with no judge is bad input naming file and line; a missing verdict in the cassette is an error', async () => {
    const f = fixture();
    const none = await runCli(['run', f.suite, '--cassettes', f.agent, '-o', path.join(f.dir, 'none'), '-q']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/suite\.jsonl:1: task capital has a rubric check, which needs a judge: pass --judge-model/);
    mkdirSync(f.judgeDir);
    const out = path.join(f.dir, 'miss');
    const miss = await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-cassettes', f.judgeDir, '-o', out, '-q']);
    expect(miss.code).toBe(3);
    expect(report(out).tasks[0].trials[0].error).toMatchObject({ code: 'JUDGE_ERROR' });
  });

  it("replays verdicts from the suite header's judge_cassettes; a missing folder there is bad input naming the field", async () => {
    const f = fixture();
    server = new FakeOpenAIServer(judgeReply);
    const base = await server.start();
    await runCli(['run', f.suite, '--cassettes', f.agent, '--judge-model', 'judge-m', '--judge-base-url', base, '--judge-record', f.judgeDir, '-o', path.join(f.dir, 'live'), '-q', '--no-html']);
    await server.stop();
    server = null;
    const body = readFileSync(f.suite, 'utf8');
    writeFileSync(f.suite, JSON.stringify({ suite: { judge_cassettes: 'judge' } }) + '\n' + body);
    const out = path.join(f.dir, 'header');
    const r = await runCli(['run', f.suite, '--cassettes', f.agent, '-o', out, '-q', '--no-html']);
    expect(r.code, r.stderr).toBe(0);
    expect(report(out).run.judge).toMatchObject({ mode: 'replayed' });
    writeFileSync(f.suite, JSON.stringify({ suite: { judge_cassettes: 'nowhere' } }) + '\n' + body);
    const bad = await runCli(['validate', f.suite]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/suite\.jsonl:1: field suite\.judge_cassettes: .*nowhere does not exist/);
  });

  it('validate refuses a bad rubric spec with file, line and field', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'rubric.jsonl');
    const lines = [
      { id: 'ok', prompt: 'p', checks: [{ type: 'rubric', rubric: 'good' }] },
      { id: 'empty', prompt: 'p', checks: [{ type: 'rubric', rubric: '  ' }] },
      { id: 'include', prompt: 'p', checks: [{ type: 'rubric', rubric: 'good', include: ['answer', 'mood'] }] },
      { id: 'score', prompt: 'p', checks: [{ type: 'rubric', rubric: 'good', min_score: 7 }] },
      { id: 'extra', prompt: 'p', checks: [{ type: 'rubric', rubric: 'good', judge: 'gpt' }] },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
    const r = await runCli(['validate', file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/rubric\.jsonl:1:/);
    expect(r.stderr).toMatch(/rubric\.jsonl:2: field checks\.0\.rubric:/);
    expect(r.stderr).toMatch(/rubric\.jsonl:3: field checks\.0\.include\.1:/);
    expect(r.stderr).toMatch(/rubric\.jsonl:4: field checks\.0\.min_score:/);
    expect(r.stderr).toMatch(/rubric\.jsonl:5: field checks\.0/);
  });
});
