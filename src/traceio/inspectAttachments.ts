import { isRecord } from './jsonText.js';

const PREFIX = 'attachment://';

/**
 * A sample with every `attachment://<hash>` string replaced by its text from `sample.attachments`
 * (Inspect moves long strings of messages, events, tool arguments and results there). A reference
 * with no attachment stays as it was.
 */
export function resolveAttachments(sample: Record<string, unknown>): Record<string, unknown> {
  const attachments = isRecord(sample['attachments']) ? sample['attachments'] : null;
  if (!attachments || Object.keys(attachments).length === 0) return sample;
  const resolve = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (!v.startsWith(PREFIX)) return v;
      const text = attachments[v.slice(PREFIX.length)];
      return typeof text === 'string' ? text : v;
    }
    if (Array.isArray(v)) return v.map(resolve);
    if (isRecord(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = resolve(x);
      return out;
    }
    return v;
  };
  const { attachments: _, ...rest } = sample;
  return resolve(rest) as Record<string, unknown>;
}
