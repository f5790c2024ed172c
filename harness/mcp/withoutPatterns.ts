/** Keywords whose value maps names to schemas (the names are not keywords). */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not schema. */
const DATA = new Set(['enum', 'const', 'default', 'examples']);

/**
 * A JSON Schema without its regular expressions (`pattern`, `patternProperties`), for validating in
 * the harness. A server's pattern is untrusted code for the regex engine: `^(a+)+$` against 40
 * characters blocks the whole process for hours, and no timeout can fire while it runs. The server
 * still gets to check its own patterns; the model is sent the schema unchanged.
 */
export function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'pattern' && typeof value === 'string') || key === 'patternProperties') continue;
    if (DATA.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutPatterns(sub)]));
    } else out[key] = withoutPatterns(value);
  }
  return out;
}
