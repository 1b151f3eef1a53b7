Deno.test("t17", () => {});
