console.error("error: client error (Connect): invalid peer certificate: UnknownIssuer");
Deno.exit(1);
