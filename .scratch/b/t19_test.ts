Deno.test("t19", () => {});
