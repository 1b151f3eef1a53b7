Deno.test("t15", () => {});
