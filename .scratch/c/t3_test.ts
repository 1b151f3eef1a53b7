Deno.test("t3", () => {});
