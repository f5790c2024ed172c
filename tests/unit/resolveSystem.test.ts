import { describe, expect, it } from 'vitest';
import { resolveSystem, secretsOf, type SystemRequest } from '../../src/adapters/resolveSystem.js';
import { splitCommand } from '../../src/adapters/splitCommand.js';
import { trialEnvironment } from '../../src/adapters/trialEnvironment.js';

const request = (flags: Partial<SystemRequest['flags']>, env: Record<string, string> = {}, extra: Partial<SystemRequest> = {}): SystemRequest => ({
  flags: { apiKeyEnv: 'OPENAI_API_KEY', sandbox: 'process', timeout: 60_000, ...flags },
  env,
  suite: { cassettes: null, policy: null },
  variant: null,
  policyTasksOnly: false,
  ...extra,
});

describe('resolveSystem: which system and which model run', () => {
  it('the harness by default, with the model errors it always had', () => {
    expect(() => resolveSystem(request({}))).toThrow(/no model configured/);
    expect(() => resolveSystem(request({ model: 'm' }))).toThrow(/OPENAI_API_KEY is not set/);
    expect(resolveSystem(request({}, {}, { policyTasksOnly: true }))).toMatchObject({ adapter: 'harness', model: { kind: 'none' } });
    expect(resolveSystem(request({}, {}, { suite: { cassettes: 's/c', policy: 'p.json' } }))).toMatchObject({ adapter: 'harness', model: { kind: 'cassettes', dir: 's/c' }, policyFile: 'p.json' });
    // A live model on the command line wins over the suite's cassettes.
    expect(resolveSystem(request({ model: 'm', baseUrl: 'http://x/v1' }, {}, { suite: { cassettes: 's/c', policy: null } })).model).toMatchObject({ kind: 'live', model: 'm', baseUrl: 'http://x/v1' });
  });

  it('a command agent needs no model configuration; an upstream or cassettes are used when given', () => {
    expect(resolveSystem(request({ agentCmd: 'python3 a.py --fast' }))).toMatchObject({ adapter: 'command', argv: ['python3', 'a.py', '--fast'], model: { kind: 'none' } });
    expect(resolveSystem(request({ agentCmd: 'a' }, { OPENAI_BASE_URL: 'http://u/v1' })).model).toMatchObject({ kind: 'live', baseUrl: 'http://u/v1', model: null });
    expect(resolveSystem(request({ agentCmd: 'a' }, {}, { suite: { cassettes: 'c', policy: null } })).model).toEqual({ kind: 'cassettes', dir: 'c', match: 'hash' });
    expect(resolveSystem(request({ agentCmd: 'a', cassettes: 'c', cassetteMatch: 'order' })).model).toEqual({ kind: 'cassettes', dir: 'c', match: 'order' });
    expect(() => resolveSystem(request({ agentCmd: 'a', record: 'r' }))).toThrow(/--record needs an upstream/);
    expect(() => resolveSystem(request({ agentCmd: 'a', cassettes: 'c', record: 'r' }))).toThrow(/--record needs a live model/);
  });

  it('--agent-clock: an offset or a date for a command agent, refused for anything else', () => {
    const plan = resolveSystem(request({ agentCmd: 'a', agentClock: '+1d' }));
    expect(plan).toMatchObject({ adapter: 'command', agentClock: { spec: '+1d', faketime: '+1d' } });
    expect(plan.adapter === 'command' && plan.agentClock!.offsetMs()).toBe(86_400_000);
    expect(resolveSystem(request({ agentCmd: 'a', agentClock: '2026-01-05' }))).toMatchObject({ agentClock: { faketime: '@2026-01-05 00:00:00' } });
    expect(() => resolveSystem(request({ agentCmd: 'a', agentClock: 'tomorrow' }))).toThrow(/--agent-clock tomorrow: not an offset/);
    expect(() => resolveSystem(request({ agentClock: '+1d' }))).toThrow(/--agent-clock applies only with --agent-cmd/);
  });

  it("an Anthropic or Gemini key or base URL alone makes an external agent's run live; their keys are secrets; a bad base URL is refused", () => {
    expect(resolveSystem(request({ agentCmd: 'a' })).model).toEqual({ kind: 'none' });
    expect(resolveSystem(request({ agentCmd: 'a', record: 'c' }, { ANTHROPIC_API_KEY: 'sk-ant-x' })).model).toMatchObject({ kind: 'live', record: 'c', baseUrl: undefined });
    expect(resolveSystem(request({ agentCmd: 'a' }, { GOOGLE_GEMINI_BASE_URL: 'http://g' })).model).toMatchObject({ kind: 'live' });
    expect(secretsOf(request({}, { ANTHROPIC_API_KEY: 'sk-ant-x', GEMINI_API_KEY: 'AIza-y' }))).toEqual(['sk-ant-x', 'AIza-y']);
    expect(() => resolveSystem(request({ agentCmd: 'a' }, { ANTHROPIC_BASE_URL: 'ftp://x' }))).toThrow(/ANTHROPIC_BASE_URL \(or --anthropic-base-url\) ftp:\/\/x: not an http/);
  });

  it('refuses what cannot run, before any trial', () => {
    expect(() => resolveSystem(request({ agentCmd: 'a', agentUrl: 'http://x' }))).toThrow(/not both/);
    expect(() => resolveSystem(request({ agentCmd: 'a', agentEnv: ['OPENAI_API_KEY'] }))).toThrow(/never reaches the agent/);
    expect(() => resolveSystem(request({ agentCmd: 'a', agentEnv: ['NOT A NAME'] }))).toThrow(/not an environment variable name/);
    expect(() => resolveSystem(request({ agentEnv: ['X'] }))).toThrow(/apply only with --agent-cmd/);
    expect(() => resolveSystem(request({ agentUrl: 'ftp://x' }))).toThrow(/only http and https/);
    expect(() => resolveSystem(request({ model: 'm', baseUrl: 'localhost:11434/v1' }))).toThrow(/--base-url localhost:11434\/v1: not an http:\/\/ or https:\/\/ URL/);
    expect(() => resolveSystem(request({ agentCmd: 'a' }, { OPENAI_BASE_URL: 'not a url' }))).toThrow(/OPENAI_BASE_URL not a url: not an http/);
    const variant = { settings: { model: 'm2', harness: { systemPrompt: 'be brief', maxSteps: 3 } }, policy: undefined, cassettes: undefined };
    expect(() => resolveSystem(request({ agentCmd: 'a' }, {}, { variant }))).toThrow(/sets system_prompt, which only the reference harness reads/);
    expect(resolveSystem(request({ agentCmd: 'a' }, { OPENAI_BASE_URL: 'http://u/v1' }, { variant: { ...variant, settings: { model: 'm2', harness: { maxSteps: 3 } } } }))).toMatchObject({ maxSteps: 3, model: { kind: 'live', model: 'm2' } });
    expect(() => resolveSystem(request({ agentUrl: 'http://x', agentHeader: ['Authorization'] }))).toThrow(/expected HEADER=ENV_VAR/);
    expect(() => resolveSystem(request({ agentUrl: 'http://x', agentHeader: ['X-Key=MISSING'] }))).toThrow(/MISSING is not set/);
  });

  it('an HTTP agent gets header values from named variables, and they count as secrets', () => {
    const req = request({ agentUrl: 'http://127.0.0.1:1/run', agentHeader: ['X-Agent-Token=AGENT_TOKEN'] }, { AGENT_TOKEN: 'tok-123456', OPENAI_API_KEY: 'sk-real-key-1' });
    expect(resolveSystem(req)).toMatchObject({ adapter: 'http', url: 'http://127.0.0.1:1/run', headers: { 'X-Agent-Token': 'tok-123456' } });
    expect(secretsOf(req).sort()).toEqual(['sk-real-key-1', 'tok-123456']);
  });
});

describe('splitCommand: words like a shell, no shell', () => {
  it('quotes and backslashes', () => {
    expect(splitCommand(`python3 'my agent.py' --name "a \\"b\\"" c\\ d`)).toEqual(['python3', 'my agent.py', '--name', 'a "b"', 'c d']);
    expect(splitCommand('  node   x.js  ')).toEqual(['node', 'x.js']);
  });
  it('refuses shell syntax instead of passing it on', () => {
    expect(() => splitCommand('a | b')).toThrow(/runs no shell/);
    expect(() => splitCommand('a $(b)')).toThrow(/runs no shell/);
    expect(() => splitCommand('echo "$HOME"')).toThrow(/would need a shell/);
    expect(() => splitCommand("a 'b")).toThrow(/unterminated/);
    expect(() => splitCommand('   ')).toThrow(/empty/);
  });
});

describe('trialEnvironment', () => {
  it('an allow list plus named variables, the trial facts, and never a value carrying a secret', () => {
    const env = trialEnvironment(
      { PATH: '/bin', HOME: '/h', SECRET_THING: 'x', WANTED: 'yes', LEAKY: 'prefix-sk-real-suffix', OPENAI_API_KEY: 'sk-real' },
      ['WANTED', 'LEAKY'],
      { taskId: 't', epoch: 1, maxSteps: 5, workspace: '/w', traceFile: '/tr.json', traceId: 'a'.repeat(32), rootSpanId: 'b'.repeat(16), baseUrl: 'http://127.0.0.1:1/t/x/v1', apiKey: 'tracegate-trial-x', model: null },
      ['sk-real'],
    );
    expect(env).toEqual({
      PATH: '/bin', HOME: '/h', WANTED: 'yes', TRACEGATE: '1', TRACEGATE_TASK_ID: 't', TRACEGATE_EPOCH: '1', TRACEGATE_MAX_STEPS: '5',
      TRACEGATE_WORKSPACE: '/w', TRACEGATE_TRACE_FILE: '/tr.json', TRACEGATE_TRACE_ID: 'a'.repeat(32), TRACEPARENT: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
      OPENAI_BASE_URL: 'http://127.0.0.1:1/t/x/v1', OPENAI_API_KEY: 'tracegate-trial-x',
      // Every protocol's client finds the trial: Anthropic's and Gemini's append their own /v1… path.
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1/t/x', ANTHROPIC_API_KEY: 'tracegate-trial-x',
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:1/t/x', GEMINI_API_KEY: 'tracegate-trial-x',
    });
  });
});
