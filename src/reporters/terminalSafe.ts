/**
 * A report's text may come from anyone (a trace, a baseline, an agent's answer): it must not drive
 * the terminal. C0/C1 controls (ESC starts colour, cursor, title and hyperlink sequences) and bidi
 * overrides are shown as `\u{…}` escapes; newlines and tabs stay.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const terminalSafe = (text: string): string => text.replace(CONTROL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
