/** Toolsets, from smallest to largest. Shared by `serve`, `config` and the catalogue. */
export const TOOLSETS = ["read", "coordinate", "full"] as const;
export type Toolset = typeof TOOLSETS[number];
