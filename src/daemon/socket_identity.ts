/**
 * Which socket answers at the daemon's path, checked before every request the client sends.
 * The pool behind `fetch` opens a new connection whenever it has none to reuse, and says
 * nothing when it does, so any request may be the first to reach whatever listens at the path
 * now. One `lstat` before each request tells:
 *
 * - another user's socket, or a symbolic link (which could lead to any socket), is refused with
 *   a retryable error and nothing is sent — a held credential stays in custody, usable once
 *   the user's own daemon answers there again. (Anything else at the name cannot take a
 *   connection: the request fails as unavailable.)
 * - a socket other than the one the compatibility verdict was made on (another device,
 *   inode, owner, mode or time) is another daemon: the verdict is made again first.
 *
 * A file's inode and times can come back: a daemon that stops, and another that binds the
 * same path within one tick of the file system's clock, can get the same inode and the same
 * times. So a verdict made on a socket that young also needs its witness: a connection to the
 * socket opened before the verdict's probe. While the daemon holds its end, the system keeps
 * the socket file's inode from being reused (the accepted end holds the path), and once the
 * daemon closes it a zero-byte write fails at once, so "is the witness alive and the inode the
 * same" proves the same daemon, whatever inode a new one would get. Once the socket is
 * `SETTLE_MS` old by its own times, a later socket's times differ from its: the witness is let
 * go and the times suffice. A PortReeve daemon that has been running a while needs no witness.
 */
import { BridgeError, Codes } from "../shared/errors.ts";
import { ownUid } from "../shared/socket_site.ts";

/** Past this age (by its birth or change time), a socket's times tell it from any later one. */
export const SETTLE_MS = 5_000;

/** An open connection to the socket a verdict was made on. */
export interface Witness {
  /** Whether the daemon still holds its end (a zero-byte write fails once it has closed it). */
  alive(): Promise<boolean>;
  close(): void;
}

/** The seams of the checks: the real ones by default. */
export interface SocketIdentityOptions {
  /** This process's user id (null: not known, owners are not judged). */
  user?: number | null;
  /** What is at a path itself (a link is not followed). */
  lstat?: (path: string) => Deno.FileInfo;
  /** Opens a witness to the socket at a path. */
  connect?: (path: string) => Promise<Witness>;
  /** The wall clock, as the file system stamps its files (ms since the epoch). */
  now?: () => number;
}

/** What tells one socket file from another. */
interface Facts {
  dev: number;
  ino: number | null;
  uid: number | null;
  mode: number | null;
  birth: number | null;
  mtime: number | null;
  ctime: number | null;
}

type Seen = Facts | "missing" | "unknown";

/** What the verdict is tied to: nothing yet, nothing it could be tied to, or a socket. */
type Held =
  | { kind: "none" }
  | { kind: "untied" }
  | { kind: "tied"; facts: Facts; witness?: Witness };

const EMPTY = new Uint8Array(0);

async function openWitness(path: string): Promise<Witness> {
  const conn = await Deno.connect({ transport: "unix", path });
  return {
    async alive() {
      try {
        await conn.write(EMPTY);
        return true;
      } catch {
        return false;
      }
    },
    close() {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    },
  };
}

/** The checks of one client's socket path; see the module comment. */
export class SocketIdentity {
  readonly #path: string;
  readonly #user: number | null;
  readonly #lstat: (path: string) => Deno.FileInfo;
  readonly #connect: (path: string) => Promise<Witness>;
  readonly #now: () => number;
  #held: Held = { kind: "none" };
  /** Bumped by `forget`: a verdict made before it ties nothing. */
  #generation = 0;

  constructor(path: string, options: SocketIdentityOptions = {}) {
    this.#path = path;
    this.#user = options.user === undefined ? ownUid() : options.user;
    this.#lstat = options.lstat ?? Deno.lstatSync;
    this.#connect = options.connect ?? openWitness;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Before every request: throws when what is at the path must be sent nothing; otherwise
   * whether the socket the verdict was tied to still answers there (true when no verdict is
   * tied, or when this process may not look).
   */
  async check(): Promise<boolean> {
    const seen = this.#look();
    const held = this.#held;
    if (held.kind === "none" || seen === "unknown") return true;
    if (held.kind === "untied" || seen === "missing" || !same(held.facts, seen)) return false;
    if (held.witness !== undefined) {
      if (!(await held.witness.alive())) return false;
      // The witness proves this socket stood at the path until now: past its settling age,
      // no later socket can have its times.
      if (this.#settled(seen)) this.#let(held);
    }
    return true;
  }

  /**
   * Runs the verdict's `probe` tied to the socket at the path: what is there is checked first
   * (as before any request), a witness is opened when the socket is young, and the tie holds
   * only if the same socket is still there, witnessed or settled, once the probe answered.
   */
  async vouch<T>(probe: () => Promise<T>): Promise<T> {
    this.forget();
    const generation = this.#generation;
    const before = this.#look();
    const young = typeof before === "object" && !this.#settled(before);
    const witness = young ? await this.#connect(this.#path).catch(() => undefined) : undefined;
    let result: T;
    try {
      result = await probe();
    } catch (error) {
      witness?.close();
      throw error;
    }
    if (generation !== this.#generation) {
      witness?.close();
      return result;
    }
    const after = this.#look();
    if (before === "unknown" || after === "unknown") {
      witness?.close();
      return result;
    }
    const tied = typeof before === "object" && typeof after === "object" && same(before, after) &&
      (witness === undefined ? !young : await witness.alive());
    if (!tied) {
      witness?.close();
      this.#held = { kind: "untied" };
      return result;
    }
    const held: Held = { kind: "tied", facts: after, witness };
    this.#held = held;
    if (this.#settled(after)) this.#let(held);
    return result;
  }

  /** Unties the verdict (it was dropped). */
  forget(): void {
    this.#generation++;
    if (this.#held.kind === "tied") this.#held.witness?.close();
    this.#held = { kind: "none" };
  }

  close(): void {
    this.forget();
  }

  #let(held: Held & { kind: "tied" }): void {
    held.witness?.close();
    held.witness = undefined;
  }

  #settled(facts: Facts): boolean {
    const stamps = [facts.birth, facts.mtime].filter((t): t is number => t !== null);
    return stamps.length > 0 && this.#now() - Math.min(...stamps) >= SETTLE_MS;
  }

  /** What is at the path; throws for what must be sent nothing. */
  #look(): Seen {
    let info: Deno.FileInfo;
    try {
      info = this.#lstat(this.#path);
    } catch (error) {
      return error instanceof Deno.errors.NotCapable ? "unknown" : "missing";
    }
    if (info.isSymlink) {
      throw untrusted(
        this.#path,
        `${this.#path} is now a symbolic link, which could lead to any socket: nothing was sent through it.`,
        {},
      );
    }
    if (!info.isSocket) return "missing";
    if (this.#user !== null && info.uid !== null && info.uid !== this.#user) {
      throw untrusted(
        this.#path,
        `The socket at ${this.#path} belongs to user ${info.uid}, not to this bridge's user ` +
          `(${this.#user}): it is not their PortReeve daemon, and nothing was sent to it.`,
        { owner: info.uid },
      );
    }
    return {
      dev: info.dev,
      ino: info.ino,
      uid: info.uid,
      mode: info.mode,
      birth: info.birthtime?.getTime() ?? null,
      mtime: info.mtime?.getTime() ?? null,
      ctime: info.ctime?.getTime() ?? null,
    };
  }
}

function same(a: Facts, b: Facts): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.uid === b.uid && a.mode === b.mode &&
    a.birth === b.birth && a.mtime === b.mtime && a.ctime === b.ctime;
}

/** What stands at the socket's path may not be sent anything; retry once the user's daemon is back. */
function untrusted(socketPath: string, message: string, details: Record<string, unknown>) {
  return new BridgeError(Codes.unavailable, message, true, {
    socketPath,
    reason: "socket_untrusted",
    ...details,
  });
}
