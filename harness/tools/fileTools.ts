import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { resolveInWorkspace } from '../sandbox/workspacePaths.js';
import { capOutput, defineTool, fault, ok, type ToolResult } from './types.js';

const MAX_WRITE_CHARS = 1_000_000;

/** The sandbox's own check, independent of the policy: file tools never leave the workspace. */
function confine(workspace: string, p: string): { absolute: string } | ToolResult {
  const checked = resolveInWorkspace(workspace, p);
  if (checked.inside) return { absolute: checked.absolute };
  return fault('PATH_OUTSIDE_WORKSPACE', checked.reason, {
    recoverable: true,
    suggestion: 'use a path relative to the workspace root',
  });
}

/** Names in the same folder that look like the missing one, for a recovery hint. */
async function similarNames(workspace: string, missing: string): Promise<string[]> {
  const dir = path.dirname(path.resolve(workspace, missing));
  const base = path.basename(missing).toLowerCase().replace(/[^a-z]/g, '');
  try {
    const entries = await readdir(dir);
    return entries
      .filter((e) => {
        const plain = e.toLowerCase().replace(/[^a-z]/g, '');
        return base.length > 0 && (plain.includes(base.slice(0, 4)) || base.includes(plain.slice(0, 4)));
      })
      .slice(0, 5)
      .map((e) => path.relative(workspace, path.join(dir, e)) || e);
  } catch {
    return [];
  }
}

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace. The path is relative to the workspace root.',
  schema: z.strictObject({ path: z.string().min(1).describe('File path relative to the workspace root') }),
  async execute(args, ctx) {
    const confined = confine(ctx.workspace, args.path);
    if (!('absolute' in confined)) return confined;
    const info = await stat(confined.absolute).catch(() => null);
    if (!info) {
      const similar = await similarNames(ctx.workspace, args.path);
      return fault('FILE_NOT_FOUND', `${args.path} does not exist`, {
        suggestion: similar.length > 0 ? `similar files: ${similar.join(', ')}` : 'use list_files to see which files exist',
      });
    }
    if (info.isDirectory()) {
      return fault('INVALID_ARGUMENTS', `${args.path} is a directory`, { suggestion: 'use list_files for directories' });
    }
    const capped = capOutput(await readFile(confined.absolute, 'utf8'), ctx.outputCap);
    return ok(capped.text, {
      truncated: capped.truncated,
      output_chars: capped.chars,
      ...(capped.truncated ? { error_type: 'OUTPUT_TRUNCATED' as const } : {}),
    });
  },
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a UTF-8 text file in the workspace, creating folders as needed. Overwrites an existing file.',
  schema: z.strictObject({
    path: z.string().min(1).describe('File path relative to the workspace root'),
    content: z.string().max(MAX_WRITE_CHARS).describe('The whole new content of the file'),
  }),
  async execute(args, ctx) {
    const confined = confine(ctx.workspace, args.path);
    if (!('absolute' in confined)) return confined;
    await mkdir(path.dirname(confined.absolute), { recursive: true });
    await writeFile(confined.absolute, args.content, 'utf8');
    return ok(`wrote ${args.content.length} characters to ${args.path}`);
  },
});

export const listFilesTool = defineTool({
  name: 'list_files',
  description: 'List the files and folders in a workspace folder (folders end with /). Use "." for the root.',
  schema: z.strictObject({ path: z.string().min(1).describe('Folder path relative to the workspace root') }),
  async execute(args, ctx) {
    const confined = confine(ctx.workspace, args.path);
    if (!('absolute' in confined)) return confined;
    const entries = await readdir(confined.absolute, { withFileTypes: true }).catch(() => null);
    if (!entries) {
      return fault('FILE_NOT_FOUND', `${args.path} is not a folder in the workspace`, {
        suggestion: 'list "." to see the workspace root',
      });
    }
    const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    const capped = capOutput(names.join('\n') || '(empty folder)', ctx.outputCap);
    return ok(capped.text, { truncated: capped.truncated, output_chars: capped.chars });
  },
});
