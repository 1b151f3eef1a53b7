/**
 * Daemon records may carry credentials under these names (the protocol issues `leaseToken`
 * and launcher `credential`; a careless or hostile daemon may echo them anywhere). They are
 * removed, not masked, from everything a tool returns: the model has handles instead.
 */
const CREDENTIAL_FIELDS = new Set([
  "leaseToken",
  "leaseTokens",
  "token",
  "tokens",
  "credential",
  "credentials",
  "operationCredential",
  "secret",
]);

/**
 * A copy of `value` without credential-named fields (plain JSON data). Past 64 levels the
 * rest is kept as it is: no record is that deep, and the output scrubber still sees values.
 */
export function withoutCredentialFields<T>(value: T, depth = 0): T {
  if (depth > 64 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    return value.map((item) => withoutCredentialFields(item, depth + 1)) as T;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!CREDENTIAL_FIELDS.has(key)) out[key] = withoutCredentialFields(item, depth + 1);
  }
  return out as T;
}
