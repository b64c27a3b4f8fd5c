import { defaultSyncPolicy as d, Limits } from "../common.ts";

const n = (x: number) => x.toLocaleString("en-US");

/**
 * The guide at the top of the API reference: the ideas a client needs before any single route.
 * `statusTable` is the Markdown table of every error code by HTTP status, made from the one status table.
 */
export const apiGuide = (statusTable: string) =>
  `Savepoint keeps games' saves in the cloud: durable on the device first, synced when the sync policy says, and never silently overwritten.
Every route below says what it guarantees and lists the errors it answers with and when. This part explains the ideas they share.

## Accounts and slots vs the save-based model

Two models run side by side in one deployment; pick one per game.

- **Accounts and slots.** A player gets an account (\`accountId\`, a device session, account-wide \`accountData\`) and any number of
  named slots up to the plan's cap, each with a small \`slotInfo\` summary and its full \`data\`. A slot sync sends the whole new
  \`data\` and gets a **small accepted body** (\`status\`, the new \`version\`, \`updatedAt\`, \`historyRetained\`, \`warnings\`):
  the client already holds what it sent, so echoing up to ${n(Limits.slotDataBytes)} bytes back would only cost bandwidth. A stale write
  gets a **409 with both sides**, the server's slot and what the client sent, because the client has to merge them.
- **The save-based model** (\`/api/v1/saves/{saveId}\`): one save per id, addressed with the runtime key alone, no account and no
  session. **Every answer, accepted or conflict, carries the canonical save**, and the client replaces its local copy with it:
  this model has no merge step, so the server's copy is always the one to keep. Its conflict is 409 \`status: "conflict"\` with the
  canonical \`save\` and \`details.clientBaseVersion\`.

## Versions and conflicts

Every account's \`accountData\`, every slot and every save has an integer \`version\`. A new one starts at 1 and each accepted
write adds exactly 1. A write sends the version it was based on as \`baseVersion\`; it is accepted only when that is still the
current version. The check and the write are one atomic step in the store, so of concurrent writers from one base exactly one is
accepted and the others get 409 \`status: "conflict"\`. A conflict changes nothing. It carries the server's current state
(\`account\`, \`slot\` or \`save\`) with its \`version\` and \`updatedAt\`, and for accounts and slots what the client sent
(\`details.clientAccountData\` or \`clientAccountDataPatch\`, \`details.clientSlot\`) beside the server's (\`details.serverAccountData\`,
\`details.serverSlot\`). The client merges, or picks a side, and writes again with the server's \`version\` as \`baseVersion\`.

An accepted sync answers \`historyRetained\`: true when this version was kept as a restore point. The plan decides how often
(one snapshot per interval, from every sync on \`self_hosted\` to one every 30 minutes on \`free\`), how many per slot and for how
many days; creating an account or a slot always keeps its first version. Operators list restore points and restore one as a new
version: history is never rewritten.

## The sync policy and warnings

The project's sync policy tells the client SDK when to sync; operators change it at any time and clients read it from the runtime
config (and from every account envelope). Defaults: \`minRemoteSyncIntervalSeconds\` ${d.minRemoteSyncIntervalSeconds},
\`forceSyncCooldownSeconds\` ${d.forceSyncCooldownSeconds}, \`syncOnAppBackground\`, \`syncOnAppForeground\` and \`syncOnReconnect\` true,
\`maxQueuedLocalSnapshots\` ${d.maxQueuedLocalSnapshots}. The server does not refuse a client that syncs more often: a slot or account-data
sync that arrives sooner than \`minRemoteSyncIntervalSeconds\` after the previous accepted one is still accepted, with
\`warnings: ["sync_interval_below_policy"]\`. A client that saves every 2 seconds sees it on every save: it should keep saving
locally and sync at the policy's pace (or when the app goes to the background), not on every save.

## Sessions and devices

Every runtime request carries the game's runtime key (\`Authorization: Bearer spk_<env>_...\`), which names the game and the
environment (\`stage\` or \`prod\`), never a player. Account routes also need the device's account session
(\`X-Service-Account-Session\`), issued when the account is created, when a transfer code is consumed, and on an identity-provider
sign-in. Each device has its own session, bound to one account and one environment; store it on the device and never log it.
A session of another account is 403 \`forbidden\`; an unknown or revoked one 401; one of a deleted account 410 \`account_deleted\`;
one of a suspended account 403 \`account_suspended\`. A second device joins an account with a one-time transfer code made on the
first device, or by signing in with the same Firebase, Supabase or Auth0 identity. \`playerRef\`, \`externalAccountRef\` and
provider subjects are never lookup keys.

## Idempotent retries

Every POST of the runtime API takes an \`Idempotency-Key\` header (1 to 255 printable ASCII characters; one UUID per logical
write). Within 24 hours a retry with the same key, credentials and body gets the first answer again, with
\`Idempotent-Replayed: true\`, and changes nothing; the same key with another body is 409 \`idempotency_key_reused\`. So a client
that got 504 \`service_timeout\`, or lost the answer with its connection, retries the same write with the same key and learns what
happened. Conflicts and errors are not recorded: a retry asks again. On the routes without a session (create account, identity
sign-in, consume a transfer code, save sync) the key is shared with every player of the runtime key, so there it must be a secret of
at least 128 bits of randomness (a UUID v4 passes).

## Errors

Every failure is answered as \`{"error": {"code", "message", "details"?}}\`: \`code\` is one of the closed set below and is what a
client should branch on; \`message\` is for people; \`details\` holds what the code documents (for example \`issues\` on
\`invalid_request\`, \`field\` and \`limitBytes\` on \`payload_too_large\`, \`retryAfter\` on 429). A sync conflict is the one 409 that
is no error envelope but a \`status: "conflict"\` body. Bad input never changes anything, and nothing a client sends gives a 500.
429 and 503 carry \`Retry-After\`; every answer carries \`X-Request-Id\`.

${statusTable}

## Limits

- \`accountData\` (and \`accountDataPatch\`, and the merged result) and slot \`data\`: ${n(Limits.slotDataBytes)} bytes each; \`slotInfo\`:
  ${n(Limits.slotInfoBytes)} bytes. A size is the UTF-8 length of the field's JSON: exactly at the limit is accepted, one byte over is
  413 \`payload_too_large\` naming the field. A whole body over 1 MiB is 413 before it is read.
- Save-based model: \`state\` ${n(Limits.slotDataBytes)} bytes, \`metadata\` ${n(Limits.slotInfoBytes)}; save ids 1 to 128 characters.
- Slot ids: 1 to 64 characters of \`A-Z a-z 0-9 _ . -\` (not \`.\` or \`..\`). Device labels: at most ${Limits.deviceLabelChars} characters.
- Active slots per account: the plan's cap (32 by default); archived and deleted slots do not count. Every listing is complete.
- Free-form objects (\`accountData\`, \`slotInfo\`, \`data\`, \`metadata\`, \`state\`) come back exactly as sent, any keys in the order
  sent. What JSON cannot carry faithfully is refused (nesting deeper than 256, a number that overflows to infinity, bytes that are
  not UTF-8). Numbers are JSON numbers: an integer beyond 2^53 comes back rounded to the nearest double, as from any JSON parser.
- Unknown body keys are 400; unknown query keys are ignored.
- Rate limits: the plan's requests per minute per environment, 120 a minute per session, 30 account creations and 30 identity
  sign-ins a minute per client IP (operators can change the last three per project); over them, 429 with \`Retry-After\`.
  Transfer codes: 10 failed attempts per client IP in 10 minutes, then 429 \`transfer_code_rate_limited\`.
`;
