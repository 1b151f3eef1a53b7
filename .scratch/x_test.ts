Deno.test("x", () => {});
