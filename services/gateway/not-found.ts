import { AppError } from "../../shared/contract/errors.ts";

/** The admin API's and the console's paths, however a person types them. */
const adminPath = /^\/(admin|console)(\/|$)/i;

/** The request's path as sent (query cut off), clipped: it is echoed in the answer. */
export function pathOf(request: Request): string {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const path = start < 0 ? "/" : url.slice(start).split("?")[0]!;
  return path.length > 200 ? `${path.slice(0, 200)}...` : path;
}

/** The admin API (and the console) asked for while SAVEPOINT_ADMIN_TOKEN is unset: the way to turn it on. */
export function adminApiOff(method: string, path: string): AppError {
  const message =
    `${path} is part of the admin API, which is off: start the server with SAVEPOINT_ADMIN_TOKEN set (16 characters or more) ` +
    "to serve /admin/v1 and /console.";
  return new AppError("not_found", message, { method, path, adminApi: "off" });
}

/**
 * The 404 for a path no route answers, naming it so a typo shows itself. With the admin API off, an
 * admin or console path says how to turn it on; a listener that serves them elsewhere
 * (SAVEPOINT_ADMIN_ADDRESS) says nothing about them.
 */
export function routeNotFound(request: Request, adminApiOn: boolean, servesAdmin: boolean): AppError {
  const path = pathOf(request);
  if (!adminApiOn && servesAdmin && adminPath.test(path)) return adminApiOff(request.method, path);
  return new AppError("not_found", `No route answers ${request.method} ${path}: the API reference is at /docs.`, {
    method: request.method,
    path,
  });
}

/** `GET /`: where a person who opened the server's address goes next. */
export const index = {
  service: "savepoint",
  docs: "/docs",
  openapi: "/openapi.json",
  healthz: "/healthz",
  readyz: "/readyz",
};
