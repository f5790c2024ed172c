import { z } from 'zod';
import type { ToolDefinition } from '../model/types.js';
import { calculatorTool } from './calculator.js';
import { listFilesTool, readFileTool, writeFileTool } from './fileTools.js';
import { runShellTool } from './shellTool.js';
import type { Tool } from './types.js';

/** The reference harness's tools, by name. */
export const TOOLS = {
  read_file: readFileTool,
  write_file: writeFileTool,
  list_files: listFilesTool,
  run_shell: runShellTool,
  calculator: calculatorTool,
} as const satisfies Record<string, Tool>;

export type ToolName = keyof typeof TOOLS;

export function findTool(name: string): Tool | undefined {
  return Object.hasOwn(TOOLS, name) ? (TOOLS[name as ToolName] as unknown as Tool) : undefined;
}

/** Strict JSON Schema for each tool, as the chat-completions API takes it; descriptions may be overridden. */
export function toolDefinitions(
  descriptions: Partial<Record<string, string>> = {},
  parameterDescriptions: Partial<Record<string, Record<string, string>>> = {},
  extra: ReadonlyArray<{ name: string; description: string; inputSchema: Record<string, unknown> }> = [],
): ToolDefinition[] {
  const external = extra.map((tool) => {
    const { $schema: _ignored, ...parameters } = tool.inputSchema;
    // MCP schemas are the server's own and need not meet strict mode's rules.
    return { type: 'function' as const, function: { name: tool.name, description: descriptions[tool.name] ?? tool.description, parameters, strict: false } };
  });
  return [...builtinDefinitions(descriptions, parameterDescriptions), ...external];
}

function builtinDefinitions(
  descriptions: Partial<Record<string, string>>,
  parameterDescriptions: Partial<Record<string, Record<string, string>>>,
): ToolDefinition[] {
  return Object.values(TOOLS).map((tool) => {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
    const properties = parameters['properties'] as Record<string, Record<string, unknown>> | undefined;
    for (const [name, description] of Object.entries(parameterDescriptions[tool.name] ?? {})) {
      if (properties?.[name]) properties[name] = { ...properties[name], description };
    }
    return {
      type: 'function' as const,
      function: {
        name: tool.name,
        description: descriptions[tool.name] ?? tool.description,
        parameters,
        strict: true,
      },
    };
  });
}
