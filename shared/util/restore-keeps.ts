/**
 * Whether a restore must also record what it replaces as a restore point (docs/api-rules.md#history-and-restore:
 * every restore can be undone). Not when a kept restore point already holds it (`heldSeq`) and survives
 * the one trim the restored point's own write makes, of a history numbered up to `seq` that keeps `kept`.
 * Slots, account data and saves restore by this one rule.
 */
export const replacedNeedsKeeping = (heldSeq: number | undefined, seq: number, kept: number): boolean => heldSeq === undefined || heldSeq <= seq + 1 - kept;
