import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';

// ajv (and fast-uri, its URI parser: about a quarter of a megabyte of code) loads with the first
// schema, from node_modules, not with every suite: most suites have none.
const require = createRequire(import.meta.url);
const loadAjv = () => (require('ajv') as typeof import('ajv')).Ajv;

/**
 * JSON Schemas in suites (answer_json, tool_args) are compiled once by ajv 8 (draft-07 and the
 * 2019 drafts' common keywords; unknown formats are ignored, not errors). strict: false so a
 * schema written for another validator with an extra keyword still loads. The validator is made on
 * the first schema: making it compiles ajv's meta-schemas, which a run with no schema never needs.
 */
let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

function compile(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    ajv ??= new (loadAjv())({ allErrors: false, strict: false, validateFormats: false });
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Null when `schema` compiles, else what ajv refused (for validate's file/line/field errors). */
export function jsonSchemaProblem(schema: object): string | null {
  try {
    compile(schema);
    return null;
  } catch (error) {
    return `not a usable JSON Schema: ${(error as Error).message}`;
  }
}

/** Null when `value` satisfies `schema`, else the first error as "at /path: message". */
export function jsonSchemaErrors(schema: object, value: unknown): string | null {
  const validate = compile(schema);
  if (validate(value)) return null;
  const e = validate.errors?.[0];
  return e ? `at ${e.instancePath || '/'}: ${e.message ?? 'invalid'}` : 'invalid';
}
