/**
 * How large a result the connected host shows its model whole. Hosts cut long tool results
 * (Codex keeps about 12 KB, head and tail; Gemini CLI the first 8,000 and last 32,000
 * characters), and what a host cut is lost to its model without a word. Each host profile
 * states its limit (`resultLimitBytes`); `serve` hands the bridge these limits by the name each
 * host gives itself (`clientInfo.name`: in MCP's `initialize`, or on the 2026-07-28 era in each
 * request's `_meta`), and the bridge fits every result
 * and page of a connection to its host's. A host of no known name, or one whose limit is not
 * known, gets the smallest limit any profile states: its pages are shorter, never cut.
 */

export interface ResultLimits {
  /** A host's `clientInfo.name` (lower case) → the bytes it shows its model whole. */
  byClient: Readonly<Record<string, number>>;
  /** For any other host: the smallest limit a profile states. */
  fallback: number;
}

/** The limit for the host that named itself `client` (undefined: it gave no name). */
export function resultLimitFor(limits: ResultLimits, client: string | undefined): number {
  const name = client?.toLowerCase();
  return name !== undefined && Object.hasOwn(limits.byClient, name)
    ? limits.byClient[name]
    : limits.fallback;
}
