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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Each tool's JSON Schema, converted from zod once and frozen: the conversion cost more than a request. */
const baseSchemas = new Map<string, Record<string, unknown>>();
function baseSchema(tool: Tool): Record<string, unknown> {
  let schema = baseSchemas.get(tool.name);
  if (!schema) {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
    schema = deepFreeze(parameters);
    baseSchemas.set(tool.name, schema);
  }
  return schema;
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
    let parameters = baseSchema(tool);
    const overrides = Object.entries(parameterDescriptions[tool.name] ?? {});
    if (overrides.length > 0) {
      // The cached schema is shared: an override gets copies of the objects it changes.
      const properties = { ...(parameters['properties'] as Record<string, Record<string, unknown>> | undefined) };
      for (const [name, description] of overrides) {
        if (properties[name]) properties[name] = { ...properties[name], description };
      }
      parameters = { ...parameters, properties };
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
