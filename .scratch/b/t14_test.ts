Deno.test("t14", () => {});
