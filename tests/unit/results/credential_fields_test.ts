/**
 * The first layer of token removal (src/results/credential_fields.ts): every field named for a
 * credential is removed from what a tool returns, at any depth, inside lists too; nothing else
 * is, not even names that only contain the word (a `credentialHandle` is what the model holds
 * instead of the secret); the input is left as it was.
 */
import assert from "node:assert/strict";
import { withoutCredentialFields } from "../../../src/results/credential_fields.ts";

/** The names the protocol (and a careless daemon) may carry a secret under. */
const CREDENTIAL_NAMES = [
  "leaseToken",
  "leaseTokens",
  "token",
  "tokens",
  "credential",
  "credentials",
  "operationCredential",
  "secret",
];

Deno.test("credential fields: each name is removed wherever it stands", () => {
  for (const name of CREDENTIAL_NAMES) {
    const record = {
      id: "l1",
      [name]: "s3cr3t",
      nested: { [name]: ["s3cr3t"], keep: 1 },
      list: [{ [name]: { deep: "s3cr3t" }, port: 80 }, [{ [name]: "s3cr3t" }]],
    };
    assert.deepEqual(
      withoutCredentialFields(record),
      { id: "l1", nested: { keep: 1 }, list: [{ port: 80 }, [{}]] },
      name,
    );
  }
});

Deno.test("credential fields: other names stay, handles and look-alikes included", () => {
  const record = {
    credentialHandle: "h".repeat(43),
    tokenCount: 2,
    leaseTokenExpiresAt: "2030-01-01T00:00:00Z",
    Token: "kept: names are matched exactly",
    mode: "token",
  };
  assert.deepEqual(withoutCredentialFields(record), record);
});

Deno.test("credential fields: a copy; the input and plain values are left as they were", () => {
  const input = { a: { leaseToken: "x", b: [1, { token: "y" }] } };
  const before = structuredClone(input);
  const out = withoutCredentialFields(input);
  assert.deepEqual(input, before);
  assert.notEqual(out.a, input.a);
  for (const value of [null, 3, "leaseToken", true, undefined]) {
    assert.equal(withoutCredentialFields(value), value);
  }
});

Deno.test("credential fields: deeper than any record (64 levels), the rest is kept as it is", () => {
  let deep: Record<string, unknown> = { leaseToken: "bottom" };
  for (let i = 0; i < 70; i++) deep = { next: deep, token: `t${i}` };
  const out = withoutCredentialFields(deep);
  let level: unknown = out;
  let removed = 0;
  while (typeof level === "object" && level !== null && "next" in level) {
    if (!("token" in level)) removed++;
    level = (level as { next: unknown }).next;
  }
  assert.equal(removed, 65, "levels 0–64 cleaned; the output scrubber still sees the rest");
});
