/**
 * An estimate of what Codex's code mode puts in its model's context for a server (the bench's
 * `ALL_TOOLS` row; `deno task test:hosts` measures the real host). Code mode shows every tool
 * as its description, the server instructions, and a TypeScript declaration of the call made
 * from the tool's input and output schemas. Codex 0.171.0 renders a schema as follows: a
 * `const` or an `enum` as literal unions, `anyOf` as a union, a type list as a union, an
 * object's properties sorted by name (`?` where not required, a property's description as a
 * comment line), a map as an index signature, and anything else as `unknown`; a `$ref` within
 * the schema is replaced by what it points at before rendering (measured: Codex 0.171.0 spells
 * a shared record out in full at each place, so `$defs` save nothing there); an MCP tool's
 * output is `CallToolResult<its structuredContent>`. The estimate is the JSON of those
 * `{name, description}` entries.
 */
import { isObject, type Json } from "../../src/shared/json.ts";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const literal = (value: unknown) => JSON.stringify(value);

/** The node a local `$ref` (`#/…`) points at within `root`, or undefined. */
function pointed(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** The schema a `$ref` resolves against, and the references being expanded (a cycle is `unknown`). */
interface Scope {
  root: unknown;
  within: readonly string[];
}

/** A JSON Schema as the TypeScript type code mode declares. */
export function typeOf(schema: unknown, scope: Scope = { root: schema, within: [] }): string {
  if (schema === true) return "unknown";
  if (schema === false) return "never";
  if (!isObject(schema)) return "unknown";
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref;
    const target = scope.within.includes(ref) ? undefined : pointed(scope.root, ref);
    return target === undefined
      ? "unknown"
      : typeOf(target, { root: scope.root, within: [...scope.within, ref] });
  }
  const inner = (node: unknown) => typeOf(node, scope);
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum.map(literal).join(" | ");
  }
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return options.map(inner).join(" | ");
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return schema.allOf.map(inner).join(" & ");
  }
  const types = ([] as unknown[]).concat(schema.type ?? []).filter((t) => typeof t === "string");
  if (types.length > 0) return types.map((t) => keyword(schema, t as string, scope)).join(" | ");
  if ("properties" in schema || "additionalProperties" in schema || "required" in schema) {
    return objectOf(schema, scope);
  }
  if ("items" in schema) return arrayOf(schema, scope);
  return "unknown";
}

function keyword(schema: Json, type: string, scope: Scope): string {
  switch (type) {
    case "string":
    case "boolean":
    case "null":
      return type;
    case "number":
    case "integer":
      return "number";
    case "array":
      return arrayOf(schema, scope);
    case "object":
      return objectOf(schema, scope);
    default:
      return "unknown";
  }
}

function arrayOf(schema: Json, scope: Scope): string {
  return "items" in schema ? `Array<${typeOf(schema.items, scope)}>` : "unknown[]";
}

function objectOf(schema: Json, scope: Scope): string {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  const names = Object.keys(properties).sort();
  const field = (name: string) =>
    `${IDENTIFIER.test(name) ? name : literal(name)}${required.includes(name) ? "" : "?"}: ${
      typeOf(properties[name], scope)
    };`;
  const index = (): string | null => {
    if ("additionalProperties" in schema) {
      const extra = schema.additionalProperties;
      if (extra === false) return null;
      return `[key: string]: ${extra === true ? "unknown" : typeOf(extra, scope)};`;
    }
    return names.length === 0 ? "[key: string]: unknown;" : null;
  };
  const described = names.some((name) => {
    const node = properties[name];
    return isObject(node) && typeof node.description === "string" && node.description !== "";
  });
  if (described) {
    const lines = ["{"];
    for (const name of names) {
      const node = properties[name];
      const words = isObject(node) && typeof node.description === "string" ? node.description : "";
      for (const line of words.split("\n").map((l) => l.trim()).filter((l) => l !== "")) {
        lines.push(`  // ${line}`);
      }
      lines.push(`  ${field(name)}`);
    }
    const extra = index();
    if (extra !== null) lines.push(`  ${extra}`);
    lines.push("}");
    return lines.join("\n");
  }
  const parts = names.map(field);
  const extra = index();
  if (extra !== null) parts.push(extra);
  return parts.length === 0 ? "{}" : `{ ${parts.join(" ")} }`;
}

export interface ListedForCodeMode {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** Bytes of the `ALL_TOOLS` entries of one server's tools, named `mcp__<server>__<tool>`. */
export function codeModeBytes(
  tools: readonly ListedForCodeMode[],
  instructions: string,
  server = "portreeve",
): number {
  const entries = tools.map((tool) => {
    const name = `mcp__${server}__${tool.name}`;
    const output = tool.outputSchema === undefined ? "unknown" : typeOf(tool.outputSchema);
    const result = output === "unknown" ? "CallToolResult" : `CallToolResult<${output}>`;
    const declaration = `declare const tools: { ${name}(args: ${
      typeOf(tool.inputSchema)
    }): Promise<${result}>; };`;
    const text = [tool.description ?? "", instructions].filter((part) => part !== "").join("\n\n");
    return {
      name,
      description: `${text}\n\nexec tool declaration:\n\`\`\`ts\n${declaration}\n\`\`\``,
    };
  });
  return new TextEncoder().encode(JSON.stringify(entries)).length;
}
