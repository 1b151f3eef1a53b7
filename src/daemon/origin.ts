/** The origin this bridge stamps on every request: the daemon records it on each event it causes. */
export function bridgeOrigin(runId: string, label?: string | null): { [key: string]: string } {
  return { kind: "mcp", runId, ...(label ? { label } : {}) };
}
