Deno.test("t18", () => {});
