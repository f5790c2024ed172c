/** The longest timer Node can set (2^31−1 ms, about 24.8 days); a longer one fires at once. Plain data: the CLI's help reads it. */
export const MAX_TIMEOUT_MS = 2_147_483_647;
