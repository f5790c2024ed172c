// A Vercel AI SDK 6 agent (ai 6, @ai-sdk/openai 3, zod 4) as a tracegate --agent-cmd: agent-input/v1
// on stdin, agent-output/v1 on stdout. `openai(model)`, the provider's default OpenAI Responses API,
// streamed (`streamText`), through the trial's capture proxy (OPENAI_BASE_URL / OPENAI_API_KEY, which
// the provider reads); a read_file tool over the trial's workspace, up to max_steps model calls.
// The packages come from $TRACEGATE_AGENTS_DIR/agents (examples/agents/install.sh).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const home = process.env.TRACEGATE_AGENTS_DIR ?? path.join(os.homedir(), '.cache', 'tracegate-agents');
const require = createRequire(path.join(home, 'agents', 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const [{ streamText, tool, stepCountIs }, { openai }, { z }] = await Promise.all([load('ai'), load('@ai-sdk/openai'), load('zod')]);

const input = JSON.parse(readFileSync(0, 'utf8'));
const inside = (p) => {
  const full = path.resolve(input.workspace, p);
  if (full !== input.workspace && !full.startsWith(input.workspace + path.sep)) throw new Error(`${p} is outside the workspace`);
  return full;
};
const result = streamText({
  model: openai(process.env.OPENAI_MODEL || 'gpt-4o-mini'),
  system: `You work in ${input.workspace}. Today is ${new Date().toDateString()}. Answer from the files.`,
  prompt: input.prompt,
  tools: {
    read_file: tool({
      description: 'Read a text file of the project.',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path: p }) => readFileSync(inside(p), 'utf8'),
    }),
  },
  stopWhen: stepCountIs(input.max_steps),
  maxRetries: 0,
  onError: ({ error }) => {
    process.stderr.write(`ai-sdk: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
});
const text = await result.text;
process.stdout.write(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: text }) + '\n');
