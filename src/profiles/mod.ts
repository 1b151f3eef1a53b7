/** Host configuration renderers behind `portreeve-mcp config` (the command is src/cli/config.ts). */
export { formatHuman } from "./human.ts";
export {
  clientNamesOf,
  ENTRY_NAMED_CLIENTS,
  findHost,
  HOST_IDS,
  HOST_PROFILES,
  hostTreatments,
  MCP_CLIENT_NAMES,
  unknownHostMessage,
} from "./hosts.ts";
export { removalCommand, removalStep } from "./removal.ts";
export { type HostProfile, parseProfile } from "./profile.ts";
export {
  ConfigError,
  type ConfigInput,
  type ConfigResult,
  type EntryValues,
  renderConfig,
  renderEntry,
  setupWords,
} from "./render.ts";
export { type Toolset, TOOLSETS } from "../shared/options.ts";
export type { Installation } from "../shared/installation.ts";
export { stringifyToml } from "./toml.ts";
