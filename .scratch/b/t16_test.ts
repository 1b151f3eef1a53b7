Deno.test("t16", () => {});
