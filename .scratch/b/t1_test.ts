Deno.test("t1", () => {});
