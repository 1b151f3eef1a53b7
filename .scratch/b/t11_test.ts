Deno.test("t11", () => {});
