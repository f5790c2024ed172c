import { chmodSync, existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../harness/index.js';
import { cleanOrphanedWorkspaces } from '../../src/orchestrator/workspaces.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

/** Misbehaving agents as real child processes: each is a small Python program in a temp dir. */
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };

interface Report {
  tasks: Array<{ id: string; status: string; failure_reason: string | null; failure_layer: string | null; evidence: Array<{ detail: string }>; trials: Array<{ trace_file: string | null; answer_preview: string | null; error: { code: string; message: string } | null }> }>;
}

function setup(agent: string, tasks: object[]): { dir: string; suite: string; cmd: string; out: string } {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'agent.py'), agent);
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  return { dir, suite, cmd: `python3 ${path.join(dir, 'agent.py')}`, out: path.join(dir, 'out') };
}

const report = (out: string) => JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
const trace = (out: string, file: string) => JSON.parse(readFileSync(path.join(out, file), 'utf8')) as { final_answer: { text: string | null }; spans: Array<{ kind: string; attributes: Record<string, unknown> }> };

/** Alive and not a zombie (a killed orphan waits for init to reap it; it runs nothing). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The pids still alive after giving the kernel time to deliver SIGKILL and reparent orphans: up to
 * 30 s on a loaded machine, returning as soon as none is left.
 */
async function survivors(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 300 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(alive);
}

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe('command adapter', () => {
  it('a command that cannot run is bad input (exit 2) before any trial, and nothing is written', async () => {
    const t = setup('print(1)', [{ id: 'x', prompt: 'hi', expected_contains: ['1'] }]);
    const missing = await runCli(['run', t.suite, '--agent-cmd', 'no-such-agent-program --fast', '--out', t.out], { env: offline });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--agent-cmd: no-such-agent-program is not on PATH/);
    const piped = await runCli(['run', t.suite, '--agent-cmd', `${t.cmd} | tee log`, '--out', t.out], { env: offline });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/"\|" is shell syntax, and tracegate runs no shell/);
    expect(existsSync(path.join(t.out, 'report.json'))).toBe(false);
  });

  it('a command that exists but cannot be started (not executable) is errored AGENT_SPAWN_FAILED, not ADAPTER_CRASH', async () => {
    const t = setup('print(1)', [{ id: 'no_exec', prompt: 'hi', expected_contains: ['1'] }]);
    const script = path.join(t.dir, 'agent.py');
    chmodSync(script, 0o644);
    const result = await runCli(['run', t.suite, '--agent-cmd', script, '--out', t.out, '--no-html'], { env: offline });
    expect(result.code).toBe(3);
    expect(report(t.out).tasks[0]!.trials[0]!.error).toMatchObject({ code: 'AGENT_SPAWN_FAILED', message: expect.stringMatching(/could not start .*EACCES/) });
  });

  it('a crash is a failure of the agent (AGENT_CRASH, harness layer) with stderr as evidence', async () => {
    const t = setup('import sys\nsys.stdin.read()\nprint("half an answer")\nprint("Traceback: boom in the agent", file=sys.stderr)\nsys.exit(3)\n', [{ id: 'crashes', prompt: 'hi', expected_contains: ['x'] }]);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--out', t.out, '--no-html'], { env: offline });
    expect(result.code).toBe(1);
    const task = report(t.out).tasks[0]!;
    expect(task).toMatchObject({ status: 'failed', failure_reason: 'AGENT_CRASH', failure_layer: 'harness' });
    expect(task.evidence[0]!.detail).toMatch(/exit code 3.*boom in the agent/s);
  });

  it('a hung agent is killed with its whole process group at its time limit (AGENT_TIMEOUT)', async () => {
    const agent = [
      'import os, subprocess, sys, time',
      'child = subprocess.Popen(["sleep", "60"])',
      'open(os.environ["PIDS_FILE"], "w").write(f"{os.getpid()} {child.pid}")',
      'time.sleep(60)',
    ].join('\n');
    const t = setup(agent, [{ id: 'hangs', prompt: 'hi', timeout_ms: 5000, expected_contains: ['x'] }]);
    const pidsFile = path.join(t.dir, 'pids');
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--agent-env', 'PIDS_FILE', '--sandbox', 'process', '--out', t.out, '--no-html'], { env: { ...offline, PIDS_FILE: pidsFile } });
    expect(report(t.out).tasks[0]).toMatchObject({ status: 'failed', failure_reason: 'AGENT_TIMEOUT', failure_layer: 'harness' });
    expect(result.code).toBe(1);
    // (a generous limit: on a loaded machine Python may need a second or more before it writes its pids)
    const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number);
    expect(await survivors(pids)).toEqual([]);
  });

  it.skipIf(!probeBubblewrap().ok)('under bubblewrap the agent sees no process outside its own (not tracegate\'s environment) and a double-forked daemon dies with it', async () => {
    const marker = `tracegate-daemon-marker-${process.pid}-${Date.now()}`;
    const agent = [
      'import json, os, subprocess, sys, time',
      'sys.stdin.read()',
      'if os.fork() == 0:',
      '    os.setsid()',
      '    if os.fork() == 0:',
      `        os.execvp("python3", ["python3", "-c", "import time; time.sleep(60)", "${marker}"])`,
      '    os._exit(0)',
      'time.sleep(0.3)',
      'environ = open(f"/proc/{os.getppid()}/environ", "rb").read()',
      'others = [p for p in os.listdir("/proc") if p.isdigit()]',
      'print("tracegate env seen" if b"HOST_ONLY_MARKER" in environ else f"no outside env; {len(others)} processes")',
    ].join('\n');
    const t = setup(agent, [{ id: 'daemonizes', prompt: 'hi', expected_contains: ['no outside env'] }]);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--out', t.out, '--no-html'], { env: { ...offline, HOST_ONLY_MARKER: 'host-only-value' } });
    expect(result.code, result.stdout).toBe(0);
    const run = JSON.parse(readFileSync(path.join(t.out, 'report.json'), 'utf8')) as { run: { sandbox: string; sandbox_reason: string } };
    expect(run.run.sandbox).toBe('bubblewrap pid namespace');
    const withMarker = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p) && alive(Number(p)) && (() => { try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker); } catch { return false; } })());
    for (let i = 0; i < 300 && withMarker().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(withMarker()).toEqual([]);
  });

  it('with --sandbox process the agent runs as a plain process group, and the report says so', async () => {
    const t = setup('import sys\nsys.stdin.read()\nprint("the answer is 42")\n', [{ id: 'plain', prompt: 'hi', expected_contains: ['42'] }]);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--sandbox', 'process', '--out', t.out, '--no-html'], { env: offline });
    expect(result.code).toBe(0);
    const run = JSON.parse(readFileSync(path.join(t.out, 'report.json'), 'utf8')) as { run: { sandbox: string; sandbox_reason: string } };
    expect(run.run).toMatchObject({ sandbox: 'process group', sandbox_reason: expect.stringMatching(/--sandbox process/) });
  });

  it('a child that outlives the agent is killed when the agent exits, and does not hold the trial open', async () => {
    const agent = [
      'import os, subprocess, sys',
      'sys.stdin.read()',
      'child = subprocess.Popen(["sleep", "60"], stdout=sys.stdout, stderr=sys.stderr)',
      'open(os.environ["PIDS_FILE"], "w").write(str(child.pid))',
      'print("done: the answer is 42", flush=True)',
    ].join('\n');
    const t = setup(agent, [{ id: 'forks', prompt: 'hi', expected_contains: ['42'] }]);
    const pidsFile = path.join(t.dir, 'pids');
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--agent-env', 'PIDS_FILE', '--sandbox', 'process', '--out', t.out, '--no-html'], { env: { ...offline, PIDS_FILE: pidsFile } });
    expect(result.code).toBe(0);
    expect(await survivors([Number(readFileSync(pidsFile, 'utf8'))])).toEqual([]);
  });

  it('garbage JSON and an invalid agent-output/v1 are AGENT_OUTPUT_INVALID naming what is wrong; a bad trace file too', async () => {
    const agent = [
      'import json, os, sys',
      'task = json.load(sys.stdin)',
      'if task["task_id"] == "garbage": print("{\\"schema_version\\": \\"agent-output/v1\\", final_answer: }")',
      'elif task["task_id"] == "wrong_type": print(json.dumps({"schema_version": "agent-output/v1", "final_answer": 5}))',
      'elif task["task_id"] == "bad_trace_file":',
      '    open(task["trace_file"], "w").write(json.dumps({"schema_version": "trace/v1", "spans": "nope"}))',
      '    print("fine")',
      'else:',
      '    open(task["trace_file"], "w").write(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{\\"q\\": 1}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\\"ok\\": false, \\"error_type\\": \\"FILE_NOT_FOUND\\"}"}, {"role": "assistant", "content": "the answer is 42"}]))',
      '    print(json.dumps({"schema_version": "agent-output/v1", "final_answer": "the answer is 42", "unknown_field": True}))',
    ].join('\n');
    const t = setup(agent, [
      { id: 'garbage', prompt: 'hi', expected_contains: ['x'] },
      { id: 'wrong_type', prompt: 'hi', expected_contains: ['x'] },
      { id: 'bad_trace_file', prompt: 'hi', expected_contains: ['fine'] },
      { id: 'messages_file', prompt: 'hi', expected_contains: ['42'], expected_error_types: ['FILE_NOT_FOUND'], expected_tools: ['lookup'] },
    ]);
    await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--out', t.out, '--no-html'], { env: offline });
    const tasks = Object.fromEntries(report(t.out).tasks.map((x) => [x.id, x]));
    expect(tasks['garbage']).toMatchObject({ status: 'failed', failure_reason: 'AGENT_OUTPUT_INVALID' });
    expect(tasks['garbage']!.evidence[0]!.detail).toMatch(/does not parse/);
    expect(tasks['wrong_type']!.failure_reason).toBe('AGENT_OUTPUT_INVALID');
    expect(tasks['wrong_type']!.evidence[0]!.detail).toMatch(/final_answer/);
    expect(tasks['bad_trace_file']!.failure_reason).toBe('AGENT_OUTPUT_INVALID');
    expect(tasks['bad_trace_file']!.evidence[0]!.detail).toMatch(/trace file .* is not a tracegate trace\/v1: trace_id: /);
    // An OpenAI messages array as the trace file: the tool call and its result become spans.
    expect(tasks['messages_file']!.status).toBe('passed');
  });

  it('a trace file that is a FIFO, a link (to /dev/zero or to another file), a folder or garbage is AGENT_OUTPUT_INVALID, never read through or quoted', async () => {
    const agent = [
      'import json, os, sys',
      'task = json.load(sys.stdin)',
      'tf, case = task["trace_file"], task["task_id"]',
      'if case == "fifo": os.mkfifo(tf)',
      'elif case == "dev_zero": os.symlink("/dev/zero", tf)',
      'elif case == "link": os.symlink(os.environ["SECRET_FILE"], tf)',
      'elif case == "folder": os.mkdir(tf)',
      'elif case == "garbage": open(tf, "w").write("MARKER-GARBAGE-0123 not json")',
      'elif case == "folder_link":',
      '    os.rmdir(os.path.dirname(tf))',
      '    os.symlink(os.path.dirname(os.environ["SECRET_FILE"]), os.path.dirname(tf))',
      '    os.link(os.environ["SECRET_FILE"], os.path.join(os.path.dirname(os.environ["SECRET_FILE"]), "trace.json"))',
      'print("fine")',
    ].join('\n');
    const tasks = ['fifo', 'dev_zero', 'link', 'folder', 'garbage', 'folder_link'].map((id) => ({ id, prompt: 'hi', timeout_ms: 20000, expected_contains: ['fine'] }));
    const t = setup(agent, tasks);
    const secretFile = path.join(t.dir, 'secret.json');
    writeFileSync(secretFile, JSON.stringify([{ role: 'user', content: 'MARKER-SECRET-4567' }, { role: 'assistant', content: 'MARKER-SECRET-4567' }]));
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--agent-env', 'SECRET_FILE', '--out', t.out, '--no-html'], { env: { ...offline, SECRET_FILE: secretFile } });
    expect(result.code).toBe(1);
    const byId = Object.fromEntries(report(t.out).tasks.map((x) => [x.id, x]));
    const expected: Record<string, RegExp> = {
      fifo: /is a FIFO, not a regular file/,
      dev_zero: /is a symbolic link/,
      link: /is a symbolic link/,
      folder: /is a directory, not a regular file/,
      garbage: /is not JSON: a syntax error/,
      folder_link: /its folder was replaced by a symbolic link/,
    };
    for (const [id, problem] of Object.entries(expected)) {
      expect(byId[id], id).toMatchObject({ status: 'failed', failure_reason: 'AGENT_OUTPUT_INVALID' });
      expect(byId[id]!.evidence[0]!.detail, id).toMatch(problem);
    }
    const written = readFileSync(path.join(t.out, 'report.json'), 'utf8') + [byId['link']!, byId['garbage']!, byId['folder_link']!].flatMap((x) => x.trials).map((x) => readFileSync(path.join(t.out, x.trace_file!), 'utf8')).join('');
    expect(written).not.toMatch(/MARKER-(SECRET|GARBAGE)/);
  });

  it('OTLP spans under another trace id are dropped; past the per-trial cap they are dropped and counted on the root span', async () => {
    const agent = [
      "let input = '';",
      "process.stdin.on('data', (c) => (input += c)).on('end', async () => {",
      '  const inp = JSON.parse(input);',
      '  const post = async (traceId, from, n) => {',
      "    const spans = Array.from({ length: n }, (_, i) => ({ traceId, spanId: (from + i).toString(16).padStart(16, '0'), parentSpanId: inp.traceparent.split('-')[2], name: 'execute_tool', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000100000000', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }, { key: 'gen_ai.tool.name', value: { stringValue: traceId === inp.trace_id ? 'lookup' : 'foreign' } }] }));",
      "    await (await fetch(inp.otlp_endpoint + '/v1/traces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }) })).text();",
      '  };',
      "  await post('5'.repeat(32), 1, 100);",
      '  await post(inp.trace_id, 1, 10000);',
      '  await post(inp.trace_id, 10001, 10005);',
      "  console.log('ok');",
      '});',
    ].join('\n');
    const t = setup('', [{ id: 'floods_otlp', prompt: 'hi', timeout_ms: 60000, expected_contains: ['ok'], expected_tools: ['lookup'] }]);
    writeFileSync(path.join(t.dir, 'agent.js'), agent);
    const result = await runCli(['run', t.suite, '--agent-cmd', `node ${path.join(t.dir, 'agent.js')}`, '--out', t.out, '--no-html'], { env: offline });
    expect(result.code, result.stderr).toBe(0);
    const spans = trace(t.out, report(t.out).tasks[0]!.trials[0]!.trace_file!).spans;
    expect(spans.find((s) => s.kind === 'agent')!.attributes['agent.otlp_spans_dropped']).toBe(5);
    expect(spans.filter((s) => s.kind === 'tool')).toHaveLength(20_000);
    expect(spans.some((s) => s.attributes['gen_ai.tool.name'] === 'foreign')).toBe(false);
  });

  it("the agent's scratch folder of a run killed with -9 is an orphan the next run removes", async () => {
    const agent = [
      'import json, os, sys, time',
      'task = json.load(sys.stdin)',
      'open(os.environ["PIDS_FILE"] + ".tmp", "w").write(f"{os.getpid()} {task[\'trace_file\']}")',
      'os.rename(os.environ["PIDS_FILE"] + ".tmp", os.environ["PIDS_FILE"])',
      'time.sleep(60)',
    ].join('\n');
    const t = setup(agent, [{ id: 'killed', prompt: 'hi', timeout_ms: 60000, expected_contains: ['x'] }]);
    const tmp = tempDir();
    const pidsFile = path.join(t.dir, 'pids');
    let runPid = 0;
    const run = runCli(['run', t.suite, '--agent-cmd', t.cmd, '--agent-env', 'PIDS_FILE', '--sandbox', 'process', '--out', t.out, '--no-html'], { env: { ...offline, PIDS_FILE: pidsFile, TMPDIR: tmp }, onSpawn: (pid) => (runPid = pid) });
    for (let i = 0; i < 300 && !existsSync(pidsFile); i++) await new Promise((r) => setTimeout(r, 100));
    const [agentPid, traceFile] = readFileSync(pidsFile, 'utf8').split(' ');
    process.kill(runPid, 'SIGKILL');
    await run;
    process.kill(-Number(agentPid), 'SIGKILL'); // its process group: a -9 leaves it no one to kill it
    const scratch = path.dirname(traceFile!);
    expect(path.dirname(scratch)).toBe(realpathSync(tmp));
    expect(existsSync(scratch)).toBe(true);
    expect(await cleanOrphanedWorkspaces(tmp)).toContain(scratch);
    expect(existsSync(scratch)).toBe(false);
  });

  it('a suite-level error pattern gives a plain-text tool result its error_type', async () => {
    const agent = [
      'import json, sys',
      'task = json.load(sys.stdin)',
      'messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "bash: /etc/shadow: Permission denied"}]',
      'print(json.dumps({"schema_version": "agent-output/v1", "final_answer": "could not read it", "messages": messages}))',
    ].join('\n');
    const t = setup(agent, [
      { suite: { error_patterns: [{ pattern: 'Permission denied', error_type: 'PERMISSION_DENIED' }] } },
      { id: 'denied', prompt: 'read /etc/shadow', expected_error_types: ['PERMISSION_DENIED'], expected_contains: ['could not'] },
    ]);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--out', t.out, '--no-html'], { env: offline });
    expect(result.code).toBe(0);
    expect(report(t.out).tasks[0]!.status).toBe('passed');
  });

  it('a 50 MB stdout is drained and capped, and the trial still ends with an answer', async () => {
    const agent = 'import sys\nsys.stdin.read()\nchunk = "answer " * 1000 + "\\n"\nfor _ in range(50 * 1024 * 1024 // len(chunk)): sys.stdout.write(chunk)\n';
    const t = setup(agent, [{ id: 'floods', prompt: 'hi', expected_contains: ['answer'] }]);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--out', t.out, '--no-html'], { env: offline });
    expect(result.code).toBe(0);
    const task = report(t.out).tasks[0]!;
    const root = trace(t.out, task.trials[0]!.trace_file!).spans.find((s) => s.kind === 'agent')!;
    expect(root.attributes['agent.stdout_bytes']).toBeGreaterThanOrEqual(50 * 1024 * 1024 - 8000);
    expect(root.attributes['agent.stdout_truncated']).toBe(true);
  });

  it('the agent never sees the upstream key: not by name, not under another name, and --agent-env for it is refused', async () => {
    const key = 'sk-upstream-0123456789abcdefghijklmnop';
    const agent = [
      'import json, os, sys',
      'sys.stdin.read()',
      'key = open(os.environ["KEY_FILE"]).read()',
      'leaked = [k for k, v in os.environ.items() if key in v]',
      'print("leaked " + ",".join(leaked) if leaked else "clean; my key is " + os.environ["OPENAI_API_KEY"][:16])',
    ].join('\n');
    const t = setup(agent, [{ id: 'snoops', prompt: 'hi', expected_contains: ['clean'] }]);
    const keyFile = path.join(t.dir, 'key');
    writeFileSync(keyFile, key);
    // A real upstream: the run's preflight checks it answers before the first trial.
    server = new FakeOpenAIServer(() => ({ content: 'unused' }));
    const env = { ...offline, OPENAI_API_KEY: key, ALSO_THE_KEY: key, KEY_FILE: keyFile, OPENAI_BASE_URL: await server.start() };
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--agent-env', 'KEY_FILE', 'ALSO_THE_KEY', '--out', t.out, '--no-html'], { env });
    expect(result.code).toBe(0);
    expect(report(t.out).tasks[0]!.trials[0]!.answer_preview).toBe('clean; my key is tracegate-trial-');
    const refused = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--agent-env', 'OPENAI_API_KEY', '--out', t.out, '--no-html'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--agent-env OPENAI_API_KEY: the upstream key never reaches the agent/);
  });

  it('with no upstream and no cassettes an agent that never calls a model runs, and one that does errors naming task and step', async () => {
    const agent = [
      'import json, os, sys, urllib.request, urllib.error',
      'task = json.load(sys.stdin)',
      'if task["task_id"] == "no_model": print("printed only"); sys.exit(0)',
      'req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(), headers={"content-type": "application/json"})',
      'try: urllib.request.urlopen(req)',
      'except urllib.error.HTTPError as e: print(e.read().decode(), file=sys.stderr); sys.exit(1)',
    ].join('\n');
    const t = setup(agent, [
      { id: 'no_model', prompt: 'hi', expected_contains: ['printed'] },
      { id: 'wants_model', prompt: 'hi', expected_contains: ['x'] },
    ]);
    await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--out', t.out, '--no-html'], { env: offline });
    const tasks = Object.fromEntries(report(t.out).tasks.map((x) => [x.id, x]));
    expect(tasks['no_model']!.status).toBe('passed');
    expect(tasks['wants_model']!.status).toBe('errored');
    expect(tasks['wants_model']!.trials[0]!.error).toMatchObject({ code: 'NO_MODEL' });
    expect(tasks['wants_model']!.trials[0]!.error!.message).toMatch(/^pass --base-url URL \(or OPENAI_BASE_URL\) for a live endpoint, or --cassettes DIR to replay: the agent called a model \(the OpenAI Chat Completions API\), but this run has none for it \(task wants_model, step 1\)$/);
  });

  it('50 trials at -j 25 never mix traffic: every trial sees only its own model calls', async () => {
    server = new FakeOpenAIServer((body) => ({ content: `echo ${String(body.messages.at(-1)?.content)}` }));
    const url = await server.start();
    const agent = [
      'import json, os, sys, urllib.request',
      'task = json.load(sys.stdin)',
      'answers = []',
      'for i in range(2):',
      '    body = {"model": "m", "messages": [{"role": "user", "content": f"{task[\'task_id\']} call {i}"}], "stream": i == 1}',
      '    req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})',
      '    raw = urllib.request.urlopen(req).read().decode()',
      '    answers.append(raw.count(task["task_id"]))',
      'print(task["task_id"], answers)',
    ].join('\n');
    const tasks = Array.from({ length: 50 }, (_, i) => ({ id: `t${String(i).padStart(2, '0')}`, prompt: 'hi', expected_contains: [`t${String(i).padStart(2, '0')}`] }));
    const t = setup(agent, tasks);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--base-url', url, '-j', '25', '--out', t.out, '--no-html', '-q'], { env: { ...offline, OPENAI_API_KEY: 'sk-upstream-0123456789abcdefghijklmnop' } });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(100);
    for (const task of report(t.out).tasks) {
      const tr = trace(t.out, task.trials[0]!.trace_file!);
      const llm = tr.spans.filter((s) => s.kind === 'llm');
      expect(llm).toHaveLength(2);
      expect(llm.map((s) => String(s.attributes['llm.content_preview']))).toEqual([`echo ${task.id} call 0`, `echo ${task.id} call 1`]);
      expect(llm.map((s) => s.attributes['llm.streamed'])).toEqual([false, true]);
    }
  });

  it('with no --model, the report names the model the proxy saw the agent ask for, not "chosen by the agent"', async () => {
    server = new FakeOpenAIServer(() => ({ content: 'hello' }));
    const url = await server.start();
    const agent = [
      'import json, os, sys, urllib.request',
      'task = json.load(sys.stdin)',
      'body = {"model": "gpt-seen-by-proxy", "messages": [{"role": "user", "content": "hi"}]}',
      'req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})',
      'print(json.loads(urllib.request.urlopen(req).read())["choices"][0]["message"]["content"])',
    ].join('\n');
    const t = setup(agent, [{ id: 'asks', prompt: 'hi', expected_contains: ['hello'] }]);
    const result = await runCli(['run', t.suite, '--agent-cmd', t.cmd, '--base-url', url, '--out', t.out, '--no-html'], { env: { ...offline, OPENAI_API_KEY: 'sk-upstream-0123456789abcdefghijklmnop' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`model: LIVE: gpt-seen-by-proxy at ${url}`);
    const full = JSON.parse(readFileSync(path.join(t.out, 'report.json'), 'utf8')) as { run: { model: { model: string } }; tasks: Report['tasks'] };
    expect(full.run.model.model).toBe('gpt-seen-by-proxy');
    const stored = JSON.parse(readFileSync(path.join(t.out, full.tasks[0]!.trials[0]!.trace_file!), 'utf8')) as { model: { model: string; mode: string } };
    expect(stored.model).toMatchObject({ model: 'gpt-seen-by-proxy', mode: 'live' });
  });
});

