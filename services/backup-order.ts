import { type ServiceName, serviceNames } from "./registry.ts";

/**
 * The order a backup copies the services' stores in (docs/backups.md): the reverse of the start order.
 * Each store is copied whole in one read transaction, but the copies are moments apart, so a later copy
 * may hold writes an earlier one missed. Where a flow writes in two stores, the store written second must
 * be copied first, so whatever it holds the other holds too, above all data written before the backup
 * began. A service is registered after the services whose records it refers to, so reversed:
 *
 * - transfer and auth-bridge before accounts: erasing a deleted account's codes and links follows its
 *   tombstone in accounts, so a copy never keeps a live account whose links were erased;
 * - billing before config: a Stripe event is marked applied only after config got the plan it sets;
 * - config last: every other store refers to its workspaces, projects and keys, made before them.
 *
 * Two flows run the other way (a code is spent in transfer before accounts opens the device's session;
 * a first provider sign-in reserves its link before accounts opens the account). Their second write can
 * only be one made while the backup ran, and docs/backups.md says what a restore shows of them.
 * tests/unit/backup-order.test.ts holds these rules against the registry's order.
 */
export const backupOrder: readonly ServiceName[] = [...serviceNames].reverse();
