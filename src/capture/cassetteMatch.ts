/**
 * How a recording is matched to a trial's requests. `hash` (the default): by the normalized
 * request, so a changed prompt, tool or earlier reply is a miss that names the step. `order`: the
 * trial's nth call gets the nth recorded reply whatever it asked, so a recording replays even when
 * something unmasked in the request varies, at the price of never noticing that the request changed
 * (the agent is judged on replies to questions it may no longer ask).
 * Plain data: the CLI's help lists the choices without loading the cassette store.
 */
export const CASSETTE_MATCHES = ['hash', 'order'] as const;
export type CassetteMatch = (typeof CASSETTE_MATCHES)[number];
