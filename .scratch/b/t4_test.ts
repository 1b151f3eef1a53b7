Deno.test("t4", () => {});
