/**
 * The shape of a host profile (`config-profiles/*.json`). Profiles are data: a host is added by
 * writing a file and listing it in `hosts.ts`, never by adding renderer code.
 */

/** Any JSON value; profile templates are plain JSON with whole-string placeholders. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type ConfigurationLanguage = "json" | "toml";

export interface HostProfile {
  /** Value of `--host`. */
  id: string;
  /** Human name of the host. */
  label: string;
  configurationLanguage: ConfigurationLanguage;
  /** Where the user puts the configuration text (shown in human output). */
  configurationTarget: string;
  /** The server entry; placeholders `${command}`, `${args}`, `${env}`. */
  server: Json;
  /** The whole configuration text's value; may use `${server}`. */
  configuration: Json;
  /** Words of the registration command, or null when the host has none. */
  setupCommand: string[] | null;
  notes: string[];
}

export class ProfileError extends Error {
  override name = "ProfileError";
}

/** Checks a profile read from JSON, so a malformed file fails loudly at start-up. */
export function parseProfile(value: unknown, origin: string): HostProfile {
  const fail = (why: string): never => {
    throw new ProfileError(`host profile ${origin}: ${why}`);
  };
  if (!isObject(value)) return fail("must be a JSON object");
  const known = [
    "id",
    "label",
    "configurationLanguage",
    "configurationTarget",
    "server",
    "configuration",
    "setupCommand",
    "notes",
  ];
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) fail(`unknown key "${key}"`);
  }
  const { id, label, configurationLanguage, configurationTarget, server, configuration } = value;
  if (typeof id !== "string" || !/^[a-z][a-z0-9-]*$/.test(id)) fail("id must be a lower-case word");
  if (typeof label !== "string" || label === "") fail("label must be a non-empty string");
  if (configurationLanguage !== "json" && configurationLanguage !== "toml") {
    fail('configurationLanguage must be "json" or "toml"');
  }
  if (typeof configurationTarget !== "string") fail("configurationTarget must be a string");
  if (!isJson(server)) fail("server must be JSON");
  if (!isJson(configuration)) fail("configuration must be JSON");
  const setup = value.setupCommand;
  if (setup !== null && !isStringArray(setup)) fail("setupCommand must be null or string[]");
  if (!isStringArray(value.notes)) fail("notes must be string[]");
  return {
    id: id as string,
    label: label as string,
    configurationLanguage: configurationLanguage as ConfigurationLanguage,
    configurationTarget: configurationTarget as string,
    server: server as Json,
    configuration: configuration as Json,
    setupCommand: setup as string[] | null,
    notes: value.notes as string[],
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isJson(value: unknown): value is Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return isObject(value) && Object.values(value).every(isJson);
}
