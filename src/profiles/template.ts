/**
 * Expands profile templates. A placeholder is a whole JSON string (never a fragment), so a
 * value is substituted as data and no path can ever be spliced into syntax:
 *
 *   "${command}"     the command string
 *   "${args}"        the argument list (spliced when it sits inside an array)
 *   "${env}"         the environment object; the key is dropped when it is empty
 *   "${env:flags}"   ["--env", "K=V", ...] spliced into an array (nothing when empty)
 *   "${server}"      the expanded server entry
 *   "${server:json}" the server entry as one compact JSON string
 *
 * One object form turns any template into one string, for hosts that take an entry as a
 * command-line word or inside a link: `{"$encode": STEPS, "of": TEMPLATE}` expands TEMPLATE,
 * then applies each step in order: "json" (compact JSON text), "base64" (of the text's UTF-8
 * bytes) and "uri" (percent-encoded for a URL query value).
 */
import type { JsonValue } from "../shared/json.ts";

interface TemplateValues {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  server?: JsonValue;
}

class TemplateError extends Error {
  override name = "TemplateError";
}

/** Expands `template`; `undefined` means "omit this value" (an empty `${env}`). */
export function expand(template: JsonValue, values: TemplateValues): JsonValue | undefined {
  if (typeof template === "string") return expandString(template, values);
  if (Array.isArray(template)) return expandArray(template, values);
  if (template === null || typeof template !== "object") return template;
  if (ENCODE in template) return encodeTemplate(template, values);
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(template)) {
    if (key.includes("${")) throw new TemplateError(`placeholders are not allowed in keys: ${key}`);
    const expanded = expand(item, values);
    if (expanded !== undefined) out[key] = expanded;
  }
  return out;
}

/** Expands a list of words (a setup command), splicing list placeholders. */
export function expandWords(words: readonly JsonValue[], values: TemplateValues): string[] {
  const out: string[] = [];
  for (const word of expandArray(words, values)) {
    if (typeof word !== "string") throw new TemplateError("setup command words must be strings");
    out.push(word);
  }
  return out;
}

function expandArray(items: readonly JsonValue[], values: TemplateValues): JsonValue[] {
  const out: JsonValue[] = [];
  for (const item of items) {
    if (item === "${args}") out.push(...values.args);
    else if (item === "${env:flags}") out.push(...envFlags(values.env));
    else {
      const expanded = expand(item, values);
      if (expanded !== undefined) out.push(expanded);
    }
  }
  return out;
}

function expandString(text: string, values: TemplateValues): JsonValue | undefined {
  switch (text) {
    case "${command}":
      return values.command;
    case "${args}":
      return [...values.args];
    case "${env}":
      return Object.keys(values.env).length === 0 ? undefined : { ...values.env };
    case "${env:flags}":
      return envFlags(values.env);
    case "${server}":
      return requireServer(values);
    case "${server:json}":
      return JSON.stringify(requireServer(values));
  }
  if (text.includes("${")) throw new TemplateError(`unknown placeholder in "${text}"`);
  return text;
}

function envFlags(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]);
}

function requireServer(values: TemplateValues): JsonValue {
  if (values.server === undefined) throw new TemplateError("${server} used inside the server");
  return values.server;
}

const ENCODE = "$encode";
type Step = "json" | "base64" | "uri";
const STEPS: readonly Step[] = ["json", "base64", "uri"];

function isStep(value: JsonValue): value is Step {
  return typeof value === "string" && (STEPS as readonly string[]).includes(value);
}

/** `{"$encode": [...steps], "of": TEMPLATE}` as one string. */
function encodeTemplate(template: { [key: string]: JsonValue }, values: TemplateValues): string {
  const { [ENCODE]: steps, of, ...rest } = template;
  if (
    Object.keys(rest).length > 0 || !Array.isArray(steps) || steps.length === 0 || of === undefined
  ) {
    throw new TemplateError('an $encode template is {"$encode": [steps], "of": TEMPLATE}');
  }
  let value: JsonValue | undefined = expand(of, values);
  for (const step of steps) {
    if (!isStep(step)) throw new TemplateError(`unknown $encode step ${JSON.stringify(step)}`);
    if (step === "json") value = JSON.stringify(value ?? null);
    else if (typeof value !== "string") {
      throw new TemplateError(`$encode step "${step}" needs text: put "json" before it`);
    } else value = step === "base64" ? base64(value) : encodeURIComponent(value);
  }
  if (typeof value !== "string") {
    throw new TemplateError('an $encode template must end in text: add a "json" step');
  }
  return value;
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
