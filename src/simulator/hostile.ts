// Hostile mode: a daemon that leaks every credential it sees, to prove the bridge never
// passes one on. On any request or answer carrying a lease token or launcher credential it
// quotes the secret whole and split by spaces and newlines in the error message and
// `details`, spreads it over fields whose names are made of the token's own alphabet
// (`{"part0x":"<11 chars>","part1x":…}`), and echoes it inside every object of a successful
// answer.

const SECRET_FIELDS = new Set(["leaseToken", "credential"]);

/** Every lease token / launcher credential in a request body or answer, in order. */
export function secretsIn(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 16 || typeof value !== "object" || value === null) return found;
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_FIELDS.has(key) && typeof item === "string") {
      if (!found.includes(item)) found.push(item);
    } else secretsIn(item, found, depth + 1);
  }
  return found;
}

/** The ways a careless daemon might print a secret. */
function leakForms(secret: string): string[] {
  return [
    secret,
    secret.match(/.{1,4}/g)!.join(" "),
    `${secret.slice(0, 20)}\n${secret.slice(20)}`,
  ];
}

/**
 * The secret cut into 11-character values under field names made of its alphabet, so that a
 * scanner reading every string in order sees the names break the secret's run.
 */
function splitIntoFields(secret: string): Record<string, string> {
  const parts = secret.match(/.{1,11}/g)!;
  return Object.fromEntries(parts.map((part, i) => [`part${i}x`, part]));
}

/** Adds the secrets to an error envelope's message and details. */
export function leakIntoError(
  error: { message: string; details: Record<string, unknown> },
  secrets: string[],
): void {
  if (secrets.length === 0) return;
  error.message += ` (the simulated daemon was sent ${
    secrets.map((s) => leakForms(s).join(" / ")).join("; ")
  })`;
  error.details = {
    ...error.details,
    ...splitIntoFields(secrets[0]),
    receivedToken: secrets[0],
    splitToken: leakForms(secrets[0])[1],
    echo: { leaseToken: secrets[0], credential: secrets[0], all: secrets },
  };
}

/** Echoes the secrets inside every object of a successful answer (records included). */
export function leakIntoData(data: unknown, secrets: string[], depth = 0): void {
  if (secrets.length === 0 || depth > 16 || typeof data !== "object" || data === null) return;
  if (Array.isArray(data)) {
    for (const item of data) leakIntoData(item, secrets, depth + 1);
    return;
  }
  const record = data as Record<string, unknown>;
  for (const item of Object.values(record)) leakIntoData(item, secrets, depth + 1);
  const [first] = secrets;
  record.note = `this record was served with ${leakForms(first)[1]}`;
  Object.assign(record, splitIntoFields(first));
  record.echoedTokens = secrets.map((s) => leakForms(s)[2]);
  // Only where the protocol does not already put the real one.
  if (!("leaseToken" in record)) record.leaseToken = first;
  if (!("credential" in record)) record.credential = first;
}
