/** An object whose JSON is exactly `bytes` long in UTF-8 (8 bytes of `{"s":""}` around the filler). */
export const sized = (bytes: number) => ({ s: "x".repeat(bytes - 8) });
