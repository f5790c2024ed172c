import { describe, expect, it } from 'vitest';
import { toolDefinitions } from '../../harness/tools/registry.js';

const readFileParams = (defs: ReturnType<typeof toolDefinitions>) =>
  defs.find((d) => d.function.name === 'read_file')!.function.parameters as { properties: Record<string, { description?: string }>; required: string[] };

describe('tool definitions', () => {
  it('convert each schema once and share it read-only', () => {
    const first = toolDefinitions();
    const again = toolDefinitions();
    first.forEach((d, i) => expect(again[i]!.function.parameters).toBe(d.function.parameters));
    expect(Object.isFrozen(first[0]!.function.parameters)).toBe(true);
    expect(() => {
      (readFileParams(first).properties as Record<string, unknown>)['injected'] = {};
    }).toThrow(TypeError);
  });

  it('apply description overrides without leaking them into other settings', () => {
    const plain = readFileParams(toolDefinitions());
    const overridden = toolDefinitions({ read_file: 'Read one file.' }, { read_file: { path: 'Workspace-relative path.' } });
    expect(overridden.find((d) => d.function.name === 'read_file')!.function.description).toBe('Read one file.');
    expect(readFileParams(overridden).properties['path']!.description).toBe('Workspace-relative path.');
    expect(readFileParams(overridden).required).toEqual(plain.required);
    expect(readFileParams(toolDefinitions()).properties['path']!.description).toBe(plain.properties['path']!.description);
    expect(readFileParams(toolDefinitions()).properties['path']!.description).not.toBe('Workspace-relative path.');
    expect(toolDefinitions().every((d) => d.function.strict && d.function.parameters['additionalProperties'] === false)).toBe(true);
  });
});
