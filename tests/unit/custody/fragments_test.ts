/** The fragment scrubber: keyed hashes of every 12-character window, matched however split. */
import assert from "node:assert/strict";
import { CredentialFragments, Custody, REDACTED } from "../../../src/custody/mod.ts";
import { newHandle } from "../../../src/custody/handle.ts";
import { FakeRenewers } from "../../support/fake_renewers.ts";
import { FakeClock } from "../../support/fake_clock.ts";

/** Alphabet characters only, in order: what a split credential looks like when joined. */
const joined = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, "");

function leaks(text: string, secret: string): string[] {
  const hay = joined(text);
  const found: string[] = [];
  for (let i = 0; i + 12 <= secret.length; i++) {
    if (hay.includes(secret.slice(i, i + 12))) found.push(secret.slice(i, i + 12));
  }
  return found;
}

const token = newHandle();

Deno.test("fragments: whole, split, escaped and partial credentials are redacted; JSON stays valid", () => {
  const fragments = new CredentialFragments();
  fragments.remember(token);
  assert.equal(fragments.size, token.length - 11);
  const spaced = token.match(/.{1,4}/g)!.join(" ");
  const cases: unknown[] = [
    { message: `token ${token} refused` },
    { message: `split ${spaced} refused` },
    { message: `lines ${token.slice(0, 20)}\n${token.slice(20)}` },
    { a: token.slice(0, 15), b: token.slice(15) }, // across two fields
    { fragment: `…${token.slice(7, 19)}…` }, // exactly 12 characters
    { [token]: "as a key", nested: [{ leaseToken: token }] },
  ];
  for (const value of cases) {
    const text = JSON.stringify(value);
    const scrubbed = fragments.scrub(text);
    assert.deepEqual(leaks(scrubbed, token), [], scrubbed);
    assert.ok(scrubbed.includes(REDACTED), scrubbed);
    JSON.parse(scrubbed); // still one valid JSON value
  }
  const unicode = `{"m":"${
    token.slice(0, 12).replace(/./g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
  }"}`;
  assert.deepEqual(JSON.parse(fragments.scrub(unicode)), { m: REDACTED });
  assert.deepEqual(
    JSON.parse(fragments.scrub(JSON.stringify({ m: ` ${spaced} ` }))).m.trim()
      .replaceAll(`${REDACTED} `, "").replaceAll(REDACTED, ""),
    "",
  );
});

/** A secret's windows in a JSON value's string values read in order, and in its keys. */
function streamLeaks(json: string, secret: string): string[] {
  const values: string[] = [];
  const keys: string[] = [];
  const read = (value: unknown) => {
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) value.forEach(read);
    else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        keys.push(key);
        read(item);
      }
    }
  };
  read(JSON.parse(json));
  return [...leaks(values.join(""), secret), ...leaks(keys.join(""), secret)];
}

Deno.test("fragments: field names never hide a split credential, whatever their characters", () => {
  const fragments = new CredentialFragments();
  fragments.remember(token);
  const parts = token.match(/.{1,11}/g)!;
  const cases: unknown[] = [
    // Names made of the token's alphabet between 11-character pieces (3 of 3 leaked before).
    Object.fromEntries(parts.map((part, i) => [`part${i}x`, part])),
    { data: { items: parts.map((part, i) => ({ [`k${i}abcdefghijk`]: part })) } },
    // Spread over the names themselves.
    Object.fromEntries(parts.map((part, i) => [part, i])),
    { outer: { [token.slice(0, 20)]: { [token.slice(20)]: true } } },
  ];
  for (const value of cases) {
    const text = JSON.stringify(value);
    assert.notDeepEqual(streamLeaks(text, token), [], "the case does hide the token");
    const scrubbed = fragments.scrub(text);
    assert.deepEqual(streamLeaks(scrubbed, token), [], scrubbed);
    JSON.parse(scrubbed);
  }
});

Deno.test("custody.scrubValue: values first, so a text block written from them is clean too", () => {
  const clock = new FakeClock();
  const custody = new Custody({ renewers: new FakeRenewers(clock), clock });
  custody.holdLease({ leaseId: "l1", token, expiresAt: clock.now() + 60_000 });
  const parts = token.match(/.{1,11}/g)!;
  const data = { record: Object.fromEntries(parts.map((part, i) => [`part${i}x`, part])) };
  // The text block nests this JSON in a string, where names and values are one run of
  // characters: it is written from values already scrubbed.
  const safe = custody.scrubValue(data);
  assert.notEqual(safe, data);
  assert.deepEqual(streamLeaks(JSON.stringify(safe), token), []);
  const text = JSON.stringify({ text: JSON.stringify(safe) });
  assert.deepEqual(streamLeaks(JSON.parse(text).text, token), []);
  const clean = { record: { port: 5173 } };
  assert.equal(custody.scrubValue(clean), clean, "nothing matched: the same value back");
});

Deno.test("fragments: 11 characters, other tokens and unrelated text pass unchanged", () => {
  const fragments = new CredentialFragments();
  fragments.remember(token);
  // Separators are skipped when matching, so the key must not extend the 11 characters to 12.
  const key = token[2] === "m" ? "n" : "m";
  const short = JSON.stringify({ [key]: token.slice(3, 14) });
  assert.equal(fragments.scrub(short), short);
  const others = Array.from({ length: 200 }, () => newHandle()).join(" ");
  const text = JSON.stringify({ others, uuid: crypto.randomUUID(), at: new Date().toISOString() });
  assert.equal(fragments.scrub(text), text);
  assert.equal(new CredentialFragments().scrub(JSON.stringify({ token })).includes(token), true);
});

Deno.test("fragments: text mode redacts anywhere, outside JSON strings too", () => {
  const fragments = new CredentialFragments();
  fragments.remember(token);
  const line = `Uncaught Error: bad token ${token.slice(0, 30)} "${token.slice(30)}"`;
  const scrubbed = fragments.scrub(line, "text");
  assert.deepEqual(leaks(scrubbed, token), []);
  assert.match(scrubbed, /^Uncaught Error: bad token \[redacted\]/);
});

Deno.test("custody scrubs what it held, after erasure and after close, keeping no copy", async () => {
  const clock = new FakeClock();
  const custody = new Custody({ renewers: new FakeRenewers(clock), clock });
  const held = custody.holdLease({ leaseId: "l1", token, expiresAt: clock.now() + 60_000 });
  custody.settleLease(held.handle);
  const text = JSON.stringify({ error: { message: `lease ${token} is gone` } });
  assert.deepEqual(leaks(custody.scrub(text), token), []);
  await custody.close();
  assert.deepEqual(leaks(custody.scrub(text), token), []);
  // A hold refused for another reason still teaches the scrubber the secret it was given.
  const other = newHandle();
  assert.throws(() => custody.holdLease({ leaseId: "l2", token: other, expiresAt: NaN }));
  assert.deepEqual(leaks(custody.scrub(`{"m":"${other}"}`), other), []);
});

Deno.test("fragments: a redaction never splits an escape of JSON held in a string, in either mode", () => {
  // A credential whose windows start with an escape's letter: "\n" then the rest, or a
  // control character's "\u0001" then the rest, inside an envelope held as a text block.
  for (const [letter, inner] of [["n", "\n"], ["u", "\u0001"], ["0", "\u0001"], ["1", "\u0001"]]) {
    const secret = `${letter}${token}`;
    const fragments = new CredentialFragments();
    fragments.remember(letter === "n" || letter === "u" ? secret : `0001${token}`);
    const envelope = JSON.stringify({ message: `before${inner}${token} after` });
    const frame = JSON.stringify({ content: [{ type: "text", text: envelope }] });
    const scrubbed = fragments.scrub(frame);
    assert.ok(scrubbed.includes(REDACTED), scrubbed);
    const text: string = JSON.parse(scrubbed).content[0].text;
    assert.equal(typeof JSON.parse(text).message, "string", text); // the inner JSON still parses
    assert.deepEqual(leaks(scrubbed, token), []);
    // A console line is scrubbed as text: the envelope's own escapes stay whole there too.
    const line = fragments.scrub(envelope, "text");
    assert.ok(line.includes(REDACTED), line);
    assert.equal(typeof JSON.parse(line).message, "string", line);
  }
});
