Deno.test("t9", () => {});
