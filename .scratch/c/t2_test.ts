Deno.test("t2", () => {});
