import { createHmac } from "node:crypto";
import type { AuthProviderConfig } from "../../shared/contract/admin.ts";
import type { Environment } from "../../shared/contract/common.ts";
import type { AuthProvider as ProviderName } from "../../shared/contract/identity.ts";
import { type HitDoc, hitIndexes } from "../../shared/limits/window-counter.ts";
import { type CollectionsOf, collection, openCollections } from "../../shared/store/collections.ts";
import type { Store } from "../../shared/store/port.ts";

/** One provider's settings in one environment: `<envId>:<provider>`. */
export type ProviderDoc = {
  _id: string;
  envId: string;
  provider: ProviderName;
  environment: Environment;
  enabled: boolean;
  projectId?: string;
  projectRef?: string;
  domain?: string;
  audience?: string;
  jwksUrl?: string;
  updatedAt: string;
};
export type ProviderSettings = Pick<AuthProviderConfig, "projectId" | "projectRef" | "domain" | "audience" | "jwksUrl">;

/**
 * An identity linked to an account, keyed by a keyed hash of environment, provider and subject: the
 * raw subject is never stored. `accountProviderKey` is unique: an account links one identity per
 * provider. `pending`: a first sign-in reserved the link for an account id that may not be open yet.
 */
export type LinkDoc = {
  _id: string;
  envId: string;
  provider: ProviderName;
  accountId: string;
  accountProviderKey: string;
  label: string;
  emailHint?: string;
  linkedAt: string;
  lastUsedAt: string;
  pending?: boolean;
};

const collections = {
  providers: collection<ProviderDoc>("authProviders"),
  links: collection<LinkDoc>("identityLinks", [
    { name: "account_provider", fields: ["accountProviderKey"], unique: true },
    { name: "account", fields: ["accountId"] },
  ]),
  /** Token exchanges by client IP. */
  exchanges: collection<HitDoc>("authExchanges", hitIndexes),
};

export type Repo = CollectionsOf<typeof collections>;

export const openRepo = (store: Store): Promise<Repo> => openCollections(store, collections);

export const providerDocId = (envId: string, provider: ProviderName) => `${envId}:${provider}`;
export const accountProviderKeyOf = (accountId: string, provider: ProviderName) => `${accountId}:${provider}`;
export const linkIdOf = (secret: string, envId: string, provider: ProviderName, subject: string) =>
  createHmac("sha256", secret).update(`${envId}\n${provider}\n${subject}`).digest("hex");
