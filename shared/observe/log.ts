/**
 * JSON-lines logger on stderr. Every line passes through `redact`, so a credential that slips into a
 * message or a field never reaches the log.
 */
type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const threshold = order[(process.env.LOG_LEVEL as Level) ?? "info"] ?? order.info;

// Runtime keys, session tokens, operator tokens, bearer values and transfer-code-shaped strings.
const secretPatterns = [
  /spk_[a-z]+_[A-Za-z0-9]+/g,
  /sps_[A-Za-z0-9_-]+/g,
  /spo_[A-Za-z0-9]+/g,
  /(Bearer\s+)[^\s"]+/gi,
  /\b[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}\b/g,
];
const secretKeys = /token|secret|password|authorization|session|runtimekey|transfercode/i;

/** Replaces anything credential-shaped in `text` with a marker. */
export function redact(text: string): string {
  return secretPatterns.reduce(
    (out, pattern) =>
      out.replace(pattern, (_m, prefix) => (typeof prefix === "string" ? `${prefix}[redacted]` : "[redacted]")),
    text,
  );
}

function serialize(fields: Record<string, unknown>): string {
  return JSON.stringify(fields, (key, value) => {
    if (key && secretKeys.test(key) && typeof value === "string") return "[redacted]";
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    return value;
  });
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** A logger whose lines all carry `base` (for example the service name). */
export function createLogger(base: Record<string, unknown> = {}): Logger {
  const write =
    (level: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (order[level] < threshold) return;
      const line = serialize({ t: new Date().toISOString(), level, msg, ...base, ...fields });
      process.stderr.write(`${redact(line)}\n`);
    };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    child: (fields) => createLogger({ ...base, ...fields }),
  };
}
