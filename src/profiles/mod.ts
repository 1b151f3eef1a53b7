/** Host configuration renderers behind `portreeve-mcp config`. */
export {
  type CommandIO,
  CONFIG_HELP,
  CONFIG_OPTIONS,
  CONFIG_USAGE,
  type ConfigDeps,
  runConfigCommand,
} from "./command.ts";
export { formatHuman } from "./human.ts";
export { findHost, HOST_IDS, HOST_PROFILES } from "./hosts.ts";
export { detectInstallation, entryPathOf, type Installation } from "./installation.ts";
export { type HostProfile, parseProfile, ProfileError } from "./profile.ts";
export {
  ConfigError,
  type ConfigErrorCode,
  type ConfigInput,
  type ConfigResult,
  PORTABLE_COMMAND,
  renderConfig,
  serveArgs,
  type Toolset,
  TOOLSETS,
  validateLabel,
  validateToolset,
} from "./render.ts";
export { shellJoin, shellQuote } from "./shell.ts";
export { stringifyToml, tomlString } from "./toml.ts";
