Deno.test("t20", () => {});
