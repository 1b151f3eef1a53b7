/** Plain JSON data: what the daemon, a host and the files we read send, defined once. */

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | {
  [key: string]: JsonValue;
};

/** A JSON object whose values are not looked at yet. */
export type Json = Record<string, unknown>;

/** Whether `value` is a JSON object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so equal arguments compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
        : v,
  );
}

/** Whether `value` is JSON through and through (what `JSON.parse` gives, and nothing else). */
export function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || ["boolean", "number", "string"].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(isJsonValue);
  return isObject(value) && Object.values(value).every(isJsonValue);
}
