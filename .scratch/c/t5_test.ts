Deno.test("t5", () => {});
