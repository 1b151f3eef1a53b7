Deno.test("t6", () => {});
