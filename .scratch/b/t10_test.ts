Deno.test("t10", () => {});
