Deno.test("t12", () => {});
