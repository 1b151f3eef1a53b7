Deno.test("t7", () => {});
