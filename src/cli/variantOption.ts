import path from 'node:path';
import type { HarnessSettings } from '../adapters/harnessAdapter.js';
import { readJsonFile } from '../files/jsonFile.js';
import { resolveMcpServerPaths } from '../schema/mcpServerPaths.js';
import { VariantSchema } from '../schema/variant.js';

export interface LoadedVariant {
  name: string;
  file: string;
  settings: { model: string | undefined; harness: Partial<HarnessSettings> };
  policy: string | undefined;
  cassettes: string | undefined;
}

/** Reads a variant file; its paths are relative to the file. Errors name file and field (exit 2). */
export function loadVariant(file: string): LoadedVariant {
  const v = readJsonFile(file, VariantSchema, 'variant file');
  const dir = path.dirname(path.resolve(file));
  const harness: Partial<HarnessSettings> = {};
  if (v.system_prompt !== undefined) harness.systemPrompt = v.system_prompt;
  if (v.tool_descriptions !== undefined) harness.toolDescriptions = v.tool_descriptions;
  if (v.tool_parameter_descriptions !== undefined) harness.toolParameterDescriptions = v.tool_parameter_descriptions;
  if (v.temperature !== undefined) harness.temperature = v.temperature;
  if (v.max_steps !== undefined) harness.maxSteps = v.max_steps;
  if (v.compression_threshold !== undefined) harness.compressionThreshold = v.compression_threshold;
  if (v.tool_choice !== undefined) harness.toolChoice = v.tool_choice;
  if (v.parallel_tool_calls !== undefined) harness.parallelToolCalls = v.parallel_tool_calls;
  if (v.mcp_servers !== undefined) harness.mcpServers = resolveMcpServerPaths(v.mcp_servers, dir);
  const relative = (p: string | undefined) => (p === undefined ? undefined : path.relative(process.cwd(), path.resolve(dir, p)) || '.');
  return {
    name: v.name,
    file: path.relative(process.cwd(), file) || file,
    settings: { model: v.model, harness },
    policy: relative(v.policy),
    cassettes: relative(v.cassettes),
  };
}
