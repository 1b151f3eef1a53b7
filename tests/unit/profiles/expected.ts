/**
 * What each host's printed configuration must hold, written here by hand (not derived from the
 * profiles): where the server entry sits once the text is parsed, the entry itself, the words
 * the host's own command receives and the install link. Adding a host is adding its profile
 * and one entry below; render_test.ts walks every profile and fails for one missing here.
 */
import { parse as parseToml } from "smol-toml";
import { DEFAULT_DAEMON_WAIT_MS } from "../../../src/shared/options.ts";

/**
 * A host's own deadline for one call: the bridge's bound on waiting for the daemon, and a
 * minute for the bridge's own answer to reach the host before the host gives up.
 */
const HOST_WAIT_MS = DEFAULT_DAEMON_WAIT_MS + 60_000;
const HOST_WAIT_FLAGS = ["--timeout", String(HOST_WAIT_MS)];

/** The command line the entry starts, as rendered. */
export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface Expected {
  /** The parsed configuration text (JSON or TOML), as plain data. */
  parse(text: string): unknown;
  /** The path from the parsed configuration's root to the server entry. */
  entryAt: readonly string[];
  /** The server entry for `launch`. */
  entry(launch: Launch): unknown;
  /** The program of the host's own setup command and the words it receives, or null. */
  setup: { program: string; words(launch: Launch): string[] } | null;
  /** What the install link decodes to, or null when the host has none. */
  link: { prefix: string; decode(rest: string): unknown; entry(launch: Launch): unknown } | null;
}

const json = (text: string): unknown => JSON.parse(text);
/** smol-toml builds null-prototype objects; a JSON copy compares with plain literals. */
const toml = (text: string): unknown => JSON.parse(JSON.stringify(parseToml(text)));

const envFlags = (env: Record<string, string>) =>
  Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]);

/** `{command, args, env}`, the entry most hosts share. */
const plain = ({ command, args, env }: Launch) => ({ command, args, env });
const stdio = (launch: Launch) => ({ type: "stdio", ...plain(launch) });

type Setup = NonNullable<Expected["setup"]>;

/** `mcp add [-e …] --timeout MS -s user portreeve <command> -- <args>`: Gemini CLI's form. */
const userScoped = (program: string): Setup => ({
  program,
  words: ({ command, args, env }) => [
    "mcp",
    "add",
    ...envFlags(env),
    ...HOST_WAIT_FLAGS,
    "-s",
    "user",
    "portreeve",
    command,
    "--",
    ...args,
  ],
});

/** `mcp add portreeve [-e …] [more] -- <command> <args>`: Codex's, OpenCode's and Copilot CLI's form. */
const namedFirst = (program: string, more: string[] = []): Setup => ({
  program,
  words: ({ command, args, env }) => [
    "mcp",
    "add",
    "portreeve",
    ...envFlags(env),
    ...more,
    "--",
    command,
    ...args,
  ],
});

export const EXPECTED: Readonly<Record<string, Expected>> = {
  claude: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: stdio,
    setup: {
      program: "claude",
      words: (launch) => [
        "mcp",
        "add-json",
        "--scope",
        "user",
        "portreeve",
        JSON.stringify(stdio(launch)),
      ],
    },
    link: null,
  },
  codex: {
    parse: toml,
    entryAt: ["mcp_servers", "portreeve"],
    entry: (launch) => ({
      ...plain(launch),
      required: true,
      startup_timeout_sec: 20,
      tool_timeout_sec: HOST_WAIT_MS / 1000,
    }),
    setup: namedFirst("codex"),
    link: null,
  },
  gemini: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: (launch) => ({ ...plain(launch), timeout: HOST_WAIT_MS }),
    setup: userScoped("gemini"),
    link: null,
  },
  generic: { parse: json, entryAt: [], entry: stdio, setup: null, link: null },
  opencode: {
    parse: json,
    entryAt: ["mcp", "portreeve"],
    entry: ({ command, args, env }) => ({
      type: "local",
      command: [command, ...args],
      environment: env,
      enabled: true,
      timeout: HOST_WAIT_MS,
    }),
    setup: namedFirst("opencode"),
    link: null,
  },
  copilot: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: (launch) => ({ type: "local", ...plain(launch), tools: ["*"], timeout: HOST_WAIT_MS }),
    setup: namedFirst("copilot", HOST_WAIT_FLAGS),
    link: null,
  },
  qwen: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: (launch) => ({ ...plain(launch), timeout: HOST_WAIT_MS }),
    // Qwen Code is a fork of Gemini CLI: the same command line.
    setup: userScoped("qwen"),
    link: null,
  },
  cline: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: (launch) => ({ ...plain(launch), timeout: HOST_WAIT_MS / 1000 }),
    // `cline mcp add` has no option for environment variables.
    setup: {
      program: "cline",
      words: ({ command, args }) => ["mcp", "add", "portreeve", "--yes", "--", command, ...args],
    },
    link: null,
  },
  vscode: {
    parse: json,
    entryAt: ["servers", "portreeve"],
    entry: stdio,
    setup: {
      program: "code",
      words: (launch) => ["--add-mcp", JSON.stringify({ name: "portreeve", ...stdio(launch) })],
    },
    link: null,
  },
  cursor: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: plain,
    setup: null,
    link: {
      prefix: "cursor://anysphere.cursor-deeplink/mcp/install?name=portreeve&config=",
      decode: (rest) =>
        JSON.parse(
          new TextDecoder().decode(
            Uint8Array.from(atob(decodeURIComponent(rest)), (char) => char.charCodeAt(0)),
          ),
        ),
      entry: plain,
    },
  },
  zed: {
    parse: json,
    entryAt: ["context_servers", "portreeve"],
    entry: plain,
    setup: null,
    link: null,
  },
  windsurf: {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: plain,
    setup: null,
    link: null,
  },
  "claude-desktop": {
    parse: json,
    entryAt: ["mcpServers", "portreeve"],
    entry: plain,
    setup: null,
    link: null,
  },
};

/** The value at `path` inside `root`, checking that each level holds that one key only. */
export function entryOf(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const keys = Object.keys(value).filter((k) => k !== "$schema");
    if (keys.length !== 1 || keys[0] !== key) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
