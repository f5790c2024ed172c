// An OpenAI Agents SDK agent (@openai/agents 0.14, zod 4) as a tracegate --agent-cmd: agent-input/v1
// on stdin, agent-output/v1 on stdout. The SDK's default model transport, OpenAI Responses (not
// streamed), through the trial's capture proxy (OPENAI_BASE_URL / OPENAI_API_KEY, which its
// `openai` client reads); a read_file tool over the trial's workspace. The SDK's trace export to
// OpenAI is off. The packages come from $TRACEGATE_AGENTS_DIR/agents (examples/agents/install.sh).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const home = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const require = createRequire(path.join(home, 'agents', 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const [{ Agent, run, tool, setTracingDisabled }, { z }] = await Promise.all([load('@openai/agents'), load('zod')]);
setTracingDisabled(true);

const input = JSON.parse(readFileSync(0, 'utf8'));
const inside = (p) => {
  const full = path.resolve(input.workspace, p);
  if (full !== input.workspace && !full.startsWith(input.workspace + path.sep)) throw new Error(`${p} is outside the workspace`);
  return full;
};
const readFile = tool({
  name: 'read_file',
  description: 'Read a text file of the project.',
  parameters: z.object({ path: z.string() }),
  execute: ({ path: p }) => readFileSync(inside(p), 'utf8'),
});
const agent = new Agent({
  name: 'tracegate example',
  instructions: `You work in ${input.workspace}. Today is ${new Date().toDateString()}. Answer from the files.`,
  model: process.env.OPENAI_MODEL || 'gpt-4o-mini',
  tools: [readFile],
});
const result = await run(agent, input.prompt, { maxTurns: input.max_steps });
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: String(result.finalOutput ?? '') }) + '\n');
