/** Error cases many operator routes share. */
export const missing = (what: string) => ({ code: "not_found", when: `No ${what} has this id.` }) as const;
export const deleted = {
  code: "account_deleted",
  when: "The account has been deleted; its history is queued for erasure.",
} as const;
