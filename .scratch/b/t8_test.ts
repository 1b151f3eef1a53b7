Deno.test("t8", () => {});
