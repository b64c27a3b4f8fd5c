import type { z } from "zod";

/**
 * A secret setting that refuses the `change-me-...` placeholders of infra/.env.example: copied as they
 * are, they would be secrets everyone who read the repository knows.
 */
export const notPlaceholder = (secret: z.ZodString) =>
  secret.refine(
    (value) => !value.startsWith("change-me"),
    'still the placeholder of infra/.env.example: make a secret (node -p \'require("crypto").randomBytes(32).toString("base64url")\')',
  );
