/** The daemon capabilities (protocol §2, `GET /v1/health`) that the bridge's routes need. */
export const Capability = {
  twoPhaseAllocation: "two-phase-allocation-v1",
  stackActivations: "stack-activations-v1",
  stackDiscovery: "stack-discovery-v1",
  launcherOperations: "launcher-operations-v1",
  dockerEvidence: "docker-evidence-v1",
  mcpFoundations: "mcp-foundations-v1",
} as const;

export type Capability = typeof Capability[keyof typeof Capability];
