/**
 * The install manifest (`lib/portreeve-mcp/manifest.json`): every file `install` wrote, by path
 * under the install root and SHA-256 of its content, and the folders it created. It is how
 * `install` and `uninstall` tell their own unmodified files from anything else: what the
 * manifest does not list, or lists with another hash, is never replaced or deleted.
 *
 * While an install runs, `pending` lists the files it is about to write (with their new
 * hashes) and `partials` the temporary names it writes them under, so that an install killed
 * half-way leaves a manifest that still recognises every file it touched. A temporary name
 * carries the SHA-256 of what it is written with, so even one no manifest lists (the
 * manifest's own, while it is being replaced) is removed only when its content is that.
 */
import { LAUNCHER_NAME } from "../../shared/install_layout.ts";

export const LAUNCHER_PATH = `bin/${LAUNCHER_NAME}`;
export const LIB_PATH = `lib/${LAUNCHER_NAME}`;
export const MANIFEST_PATH = `${LIB_PATH}/manifest.json`;
/** Folders an install needs, parents first. */
export const FOLDERS = ["bin", "lib", LIB_PATH] as const;
/** The root itself, in `folders` when the install made it (a PORTREEVE_MCP_INSTALL_ROOT). */
export const ROOT_FOLDER = ".";

export interface ManifestFile {
  path: string;
  sha256: string;
}

export interface Manifest {
  format: 1;
  product: typeof LAUNCHER_NAME;
  version: string;
  files: ManifestFile[];
  /** Folders this installer created (and so may remove again when they are empty). */
  folders: string[];
  pending: ManifestFile[];
  partials: string[];
}

export class ManifestError extends Error {}

/**
 * Paths a manifest may name: the launcher and files directly in the lib folder. A manifest
 * edited to name anything else (`../`, another folder) is refused whole, so it can never
 * point `uninstall` outside the install layout.
 */
function isInstallablePath(path: string): boolean {
  if (path === LAUNCHER_PATH) return true;
  if (!path.startsWith(`${LIB_PATH}/`)) return false;
  const name = path.slice(LIB_PATH.length + 1);
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") &&
    !name.includes("\0") && path !== MANIFEST_PATH;
}

/**
 * The temporary name a file is written under, by process `pid`, before it is renamed into
 * place: `.NAME.PID.SHA256.partial` beside it, SHA256 being that of the content it gets.
 */
export function partialPath(path: string, pid: number, sha256: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash)}/.${path.slice(slash + 1)}.${pid}.${sha256}.partial`;
}

/** A temporary name as `partialPath` makes them (earlier installers left out the hash). */
const PARTIAL = new RegExp(
  `^(?:bin|${LIB_PATH})/\\.([^/]+?)\\.[0-9]+(?:\\.([0-9a-f]{64}))?\\.partial$`,
);

export function isPartialPath(path: string): boolean {
  return PARTIAL.test(path);
}

/** What a temporary file must hold to be this installer's: null when its name does not say. */
export function partialHash(path: string): string | null {
  return PARTIAL.exec(path)?.[2] ?? null;
}

/** The installed path a temporary file stands for (`bin/.x.1.H.partial` → `bin/x`). */
export function partialTarget(path: string): string | null {
  const match = PARTIAL.exec(path);
  if (match === null) return null;
  return `${path.slice(0, path.lastIndexOf("/"))}/${match[1]}`;
}

const HEX64 = /^[0-9a-f]{64}$/;

function fieldOf(entry: unknown, name: string): unknown {
  return typeof entry === "object" && entry !== null ? Reflect.get(entry, name) : undefined;
}

function fileEntries(value: unknown, field: string): ManifestFile[] {
  if (!Array.isArray(value)) throw new ManifestError(`"${field}" is not a list`);
  return value.map((entry: unknown) => {
    const path = fieldOf(entry, "path");
    const sha256 = fieldOf(entry, "sha256");
    if (typeof path !== "string" || !isInstallablePath(path)) {
      throw new ManifestError(`"${field}" names a path outside the install layout`);
    }
    if (typeof sha256 !== "string" || !HEX64.test(sha256)) {
      throw new ManifestError(`"${field}" has an entry without a SHA-256`);
    }
    return { path, sha256 };
  });
}

function stringList(value: unknown, field: string, allowed: (path: string) => boolean): string[] {
  if (!Array.isArray(value)) throw new ManifestError(`"${field}" is not a list`);
  return value.map((entry: unknown) => {
    if (typeof entry !== "string" || !allowed(entry)) {
      throw new ManifestError(`"${field}" names a path outside the install layout`);
    }
    return entry;
  });
}

/** Reads a manifest's text; throws ManifestError naming what is wrong with it. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ManifestError("it is not JSON");
  }
  if (typeof value !== "object" || value === null) throw new ManifestError("it is not an object");
  if (fieldOf(value, "format") !== 1 || fieldOf(value, "product") !== LAUNCHER_NAME) {
    throw new ManifestError(`it is not a format-1 ${LAUNCHER_NAME} manifest`);
  }
  const version = fieldOf(value, "version");
  if (typeof version !== "string") throw new ManifestError(`"version" is not a string`);
  return {
    format: 1,
    product: LAUNCHER_NAME,
    version,
    files: fileEntries(fieldOf(value, "files"), "files"),
    folders: stringList(
      fieldOf(value, "folders"),
      "folders",
      (path) => path === ROOT_FOLDER || FOLDERS.some((folder) => folder === path),
    ),
    pending: fileEntries(fieldOf(value, "pending") ?? [], "pending"),
    partials: stringList(fieldOf(value, "partials") ?? [], "partials", isPartialPath),
  };
}

export function emptyManifest(version: string): Manifest {
  return {
    format: 1,
    product: LAUNCHER_NAME,
    version,
    files: [],
    folders: [],
    pending: [],
    partials: [],
  };
}

export function formatManifest(manifest: Manifest): string {
  return JSON.stringify(manifest, null, 2) + "\n";
}

/** Every hash the manifest accepts for `path` as this installer's own content. */
export function hashesFor(manifest: Manifest | null, path: string): Set<string> {
  const entries = [...(manifest?.files ?? []), ...(manifest?.pending ?? [])];
  return new Set(entries.filter((entry) => entry.path === path).map((entry) => entry.sha256));
}

export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
