/**
 * Every bound an input carries and why (a leaf: the tools' input schemas and the cursors
 * results issue both read it), so an over-long value is `portreeve_invalid_input`
 * naming its field before anything is sent. docs/limits.md is generated from this list.
 */
export const INPUT_BOUNDS = {
  path: {
    max: 4095,
    unit: "UTF-8 bytes",
    why:
      "Linux PATH_MAX is 4,096 bytes with the terminating NUL, so no longer path names a file (macOS allows 1,024; its daemon refuses the rest)",
  },
  stackRootReceipt: {
    max: 1024,
    unit: "characters",
    why:
      "the daemon binds a stack receipt to the stack root and refuses a receipt target over 1,024 characters",
  },
  name: {
    max: 128,
    unit: "characters",
    why:
      "protocol: project, component, endpoint, service and alias names are 1–128 characters, so a longer filter can match nothing",
  },
  eventType: { max: 128, unit: "characters", why: "protocol: a history event's eventType" },
  entityType: { max: 64, unit: "characters", why: "protocol: a history event's entityType" },
  entityId: {
    max: 1024,
    unit: "characters",
    why:
      "the protocol states none; entity ids are UUIDs, ports and stack roots, and the longest id it bounds (a receipt target) is 1,024",
  },
  time: {
    max: 64,
    unit: "characters",
    why:
      "an ISO 8601 time with offset is 35 characters even with nanoseconds (the daemon writes 24); 64 leaves room for finer fractions",
  },
  cursor: {
    max: 1024,
    unit: "characters",
    why:
      "cursors this bridge issues stay under it (each sort key cut to 100 bytes); a longer one was not issued here",
  },
  stackEntries: {
    max: 256,
    unit: "entries",
    why:
      "the protocol states none; 256 components of 256 endpoints each would cover every TCP port",
  },
  automaticPortRanges: { max: 16, unit: "entries", why: "protocol: 1–16 ranges" },
  excludedPorts: { max: 4096, unit: "entries", why: "protocol: at most 4,096 ports" },
  definition: {
    max: 1_048_576,
    unit: "UTF-8 bytes of JSON",
    why:
      "the daemon reads a portreeve.stack.json of at most 1 MiB, so a larger definition can never be a stack",
  },
} as const;
