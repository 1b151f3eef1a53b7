Deno.test("t13", () => {});
