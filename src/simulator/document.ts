// Stack roots and the portreeve.stack.json document: canonical roots, lstat-based reads, and
// the guarded writes behind stack-apply receipts.
import { basename, isAbsolute, join } from "node:path";
import { fail } from "./errors.ts";
import { type DefinitionIssue, normalizeDefinition, type StackDefinition } from "./stackdef.ts";
import { sha256Hex, uuid } from "./util.ts";

const DOCUMENT_NAME = "portreeve.stack.json";
const MAX_DOCUMENT_BYTES = 1_048_576;

/** realpath + directory check; throws invalid_input with `reason` or `documentCode`. */
export async function canonicalStackRoot(
  stackRoot: string,
  style: "reason" | "documentCode",
): Promise<string> {
  const invalid = () =>
    style === "reason"
      ? fail.invalid(`Stack root ${stackRoot} is not an existing directory.`, {
        stackRoot,
        reason: "invalid_stack_root",
      })
      : fail.document(
        "invalid_stack_root",
        `Stack root ${stackRoot} is not an existing directory.`,
        { stackRoot },
      );
  if (!isAbsolute(stackRoot)) throw invalid();
  try {
    const real = await Deno.realPath(stackRoot);
    if (!(await Deno.stat(real)).isDirectory) throw invalid();
    return real;
  } catch {
    throw invalid();
  }
}

interface StackDocument {
  stackRoot: string;
  stackRootName: string;
  path: string;
  kind: "missing" | "regular" | "non-regular" | "oversized";
  fingerprint: string | null;
  definition: StackDefinition | null;
  revision: string | null;
  issues: DefinitionIssue[];
}

function metadataFingerprint(info: Deno.FileInfo): string {
  return `metadata:${info.dev}:${info.ino}:${info.mode}:${info.size}:${info.mtime?.getTime() ?? 0}`;
}

/** Reads `<root>/portreeve.stack.json` without following symlinks. */
export async function readDocument(root: string): Promise<StackDocument> {
  const path = join(root, DOCUMENT_NAME);
  const base: StackDocument = {
    stackRoot: root,
    stackRootName: basename(root),
    path,
    kind: "missing",
    fingerprint: null,
    definition: null,
    revision: null,
    issues: [],
  };
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return base;
    throw fail.document("stack_definition_read_failed", `Could not inspect ${path}.`);
  }
  if (!info.isFile) {
    return {
      ...base,
      kind: "non-regular",
      fingerprint: metadataFingerprint(info),
      issues: [{
        code: "definition_not_regular",
        message: "The stack file is not a regular file.",
        path: [],
      }],
    };
  }
  if (info.size > MAX_DOCUMENT_BYTES) {
    return {
      ...base,
      kind: "oversized",
      fingerprint: metadataFingerprint(info),
      issues: [{
        code: "definition_too_large",
        message: "The stack file exceeds 1 MiB.",
        path: [],
      }],
    };
  }
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch {
    throw fail.document("stack_definition_read_failed", `Could not read ${path}.`);
  }
  const doc: StackDocument = { ...base, kind: "regular", fingerprint: sha256Hex(bytes) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return {
      ...doc,
      issues: [{ code: "invalid_json", message: "The stack file is not valid JSON.", path: [] }],
    };
  }
  const result = normalizeDefinition(parsed);
  return result.ok
    ? { ...doc, definition: result.definition, revision: result.revision }
    : { ...doc, issues: result.issues };
}

/**
 * Writes the document: exclusive create when the preview saw none, otherwise an atomic
 * replace that first checks the bytes still match the previewed fingerprint.
 */
export async function writeDocument(
  root: string,
  text: string,
  expected: { kind: string; fingerprint: string | null },
): Promise<{ path: string; fingerprint: string }> {
  const path = join(root, DOCUMENT_NAME);
  const changed = () =>
    fail.document("stack_definition_changed", `${path} changed since the preview.`, { path });
  const current = await readDocument(root);
  if (current.kind !== expected.kind || current.fingerprint !== expected.fingerprint) {
    throw changed();
  }
  if (expected.kind === "non-regular") {
    throw fail.document("stack_definition_not_regular", `${path} is not a regular file.`, { path });
  }
  if (expected.kind === "oversized") {
    throw fail.document("stack_definition_too_large", `${path} is larger than 1 MiB.`, { path });
  }
  if (expected.kind === "missing") {
    try {
      await Deno.writeTextFile(path, text, { createNew: true, mode: 0o644 });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) throw changed();
      throw fail.document("stack_definition_read_failed", `Could not create ${path}.`, { path });
    }
  } else {
    const temp = join(root, `.${DOCUMENT_NAME}.${Deno.pid}.${uuid()}.tmp`);
    try {
      await Deno.writeTextFile(temp, text, { createNew: true, mode: 0o644 });
      await Deno.rename(temp, path);
    } catch {
      await Deno.remove(temp).catch(() => {});
      throw fail.document("stack_definition_read_failed", `Could not replace ${path}.`, { path });
    }
  }
  const fingerprint = sha256Hex(new TextEncoder().encode(text));
  const after = await readDocument(root);
  if (after.fingerprint !== fingerprint) {
    throw fail.document(
      "stack_definition_verification_failed",
      `${path} did not read back as written.`,
      { path },
    );
  }
  return { path, fingerprint };
}
