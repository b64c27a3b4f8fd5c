import { adminToken, type Deployment } from "./deployments.ts";

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  key?: string;
  session?: string;
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  raw?: string;
  headers?: Record<string, string>;
}

/** One HTTP call; JSON bodies are parsed, anything else is kept as text. */
export async function call(d: Deployment, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.session) headers["x-service-account-session"] = o.session;
  let body: string | undefined = o.raw;
  if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await d.request(path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

export const admin = (d: Deployment, method: string, path: string, body?: unknown) =>
  call(d, method, path, { key: adminToken, body });

/** A fresh workspace, project and stage key, so tests never share tenants. */
export async function newTenant(d: Deployment, plan = "self_hosted", environment: "stage" | "prod" = "stage") {
  const ws = await admin(d, "POST", "/admin/v1/workspaces", { name: "test", plan });
  const project = await admin(d, "POST", `/admin/v1/workspaces/${ws.body.workspaceId}/projects`, { name: "game" });
  const key = await admin(
    d,
    "POST",
    `/admin/v1/projects/${project.body.projectId}/environments/${environment}/runtime-keys`,
    { label: "t" },
  );
  if (key.status !== 201) throw new Error(`tenant setup failed: ${JSON.stringify(key.body)}`);
  return {
    workspaceId: ws.body.workspaceId as string,
    projectId: project.body.projectId as string,
    keyId: key.body.keyId as string,
    key: key.body.runtimeKey as string,
  };
}

/** Creates an account and returns a caller bound to its session. */
export async function newAccount(d: Deployment, key: string, body: unknown = {}) {
  const created = await call(d, "POST", "/api/v1/accounts", { key, body });
  if (created.status !== 201)
    throw new Error(`account creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const accountId: string = created.body.accountId;
  const session: string = created.body.accountSessionToken;
  return {
    accountId,
    session,
    created,
    call: (method: string, path: string, o: CallOptions = {}) =>
      call(d, method, path.replace("{acc}", accountId), { key, session, ...o }),
  };
}
