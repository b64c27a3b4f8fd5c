/**
 * JSON that is stored as text and served as it is (a slot's `data`): wrapped in a `JsonText`, it is
 * spliced into an answer by `encodeJson` instead of being parsed by the service and encoded again by
 * the gateway. Anything else that encodes it (`JSON.stringify` of an idempotency record, a log) still
 * gets the value, through `toJSON`: correct everywhere, fast where `encodeJson` is used.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (!splicing) return JSON.parse(this.text);
    splicing.push(this.text);
    return `${marker}${splicing.length - 1}`;
  }
}

// U+0000 is written as `\u0000` inside a JSON string, so a marker is the whole string `"\u0000<n>"`.
const marker = "\u0000";
const markerPattern = /"\\u0000(\d+)"/g;
let splicing: string[] | undefined;

/** `JSON.stringify(value)`, with each `JsonText` inside written as its own text. */
export function encodeJson(value: unknown): string {
  const outer = splicing;
  const texts: string[] = [];
  splicing = texts;
  let encoded: string;
  try {
    encoded = JSON.stringify(value);
  } finally {
    splicing = outer;
  }
  if (texts.length === 0) return encoded;
  let seen = 0;
  let inOrder = true;
  const spliced = encoded.replace(markerPattern, (_, n: string) => {
    if (Number(n) !== seen++) inOrder = false;
    return texts[Number(n)] ?? "";
  });
  // A string of the answer's own that looks like a marker: encode the plain way, where nothing is spliced.
  return inOrder && seen === texts.length ? spliced : JSON.stringify(value);
}
