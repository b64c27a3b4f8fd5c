/** What every admin route shares: its base statuses and the path prefixes of its resources. */

// Each admin route adds the statuses of its own error cases (400 where it takes input, 409 and 410 where they apply).
export const admin = [401, 404, 500] as const;
export const accountAdmin = (p: string) => `/admin/v1/accounts/:accountId${p}`;
export const envAdmin = (p: string) => `/admin/v1/projects/:projectId/environments/:env${p}`;
