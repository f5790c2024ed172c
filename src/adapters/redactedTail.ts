import { dropCutToken, type Redactor } from '../schema/redact.js';

const dropLeadingPart = (text: string): string => dropCutToken(text, 'start');

/**
 * The last `max` characters of `text` as evidence (an agent's stderr tail), redacted before the cut.
 * `alreadyCut`: the text is itself a tail (the start of its first token may be missing), so that
 * token goes too. A secret straddling either cut shows none of its parts.
 */
export function redactedTail(redactor: Redactor, text: string, max: number, alreadyCut: boolean): string {
  const whole = redactor.text(alreadyCut ? dropLeadingPart(text) : text);
  return whole.length <= max ? whole : dropLeadingPart(whole.slice(-max));
}
