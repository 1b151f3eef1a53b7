/**
 * How executes get a person's approval (`serve --approval`). Shared by `serve`, `config`,
 * `doctor` and the catalogue. `auto`: ask the user through the host when it can; `required`:
 * refuse every execute when it cannot; `off`: never ask (the agent must ask the user itself).
 */
export const APPROVAL_MODES = ["required", "auto", "off"] as const;
export type ApprovalMode = typeof APPROVAL_MODES[number];
export const DEFAULT_APPROVAL_MODE: ApprovalMode = "auto";
/** How long a question waits for the person (never past the receipt's expiry). */
export const DEFAULT_APPROVAL_MS = 120_000;
