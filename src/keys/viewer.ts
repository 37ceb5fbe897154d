// Who is calling, worked out once per request from its bearer key: the admin (ADMIN_API_KEY; with
// no key configured nobody is), and the owner of webhooks (the SHA-256 of WEBHOOK_API_KEY or of an
// issued key with the webhooks scope). A webhook key is looked up (and marked used) only when a
// request first needs it, then never again for that request.
import type { Config } from '../config.js';
import { unauthenticated } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { isActiveKey, issuedKeyShape, webhookScope } from './api-keys.js';
import { bearerToken, sameKey, sha256Hex } from './bearer.js';

export interface Viewer {
  isAdmin: boolean;
  /** The owner key hash webhooks are scoped to, or undefined when the key may not manage webhooks. */
  webhookOwner(): Promise<string | undefined>;
}

/** The scopes a field or route can require, and the 401 of each. */
export type Scope = 'admin' | 'webhooks';

export const scopeRefusal: Record<Scope, () => Error> = {
  admin: () => unauthenticated('Missing or invalid admin bearer key'),
  webhooks: () => unauthenticated(),
};

/** The caller without a request (the webhook dispatcher's own subscriptions). */
export const noViewer: Viewer = { isAdmin: false, webhookOwner: async () => undefined };

export function viewerOf(
  deps: { config: Pick<Config, 'adminApiKey' | 'webhookApiKey'>; prisma: PrismaClient },
  request: { headers: Pick<Headers, 'get'> },
): Viewer {
  const token = bearerToken(request);
  if (!token) return noViewer;
  const { adminApiKey, webhookApiKey } = deps.config;
  let owner: Promise<string | undefined> | undefined;
  const findOwner = async () => {
    const keyHash = sha256Hex(token);
    if (sameKey(token, webhookApiKey)) return keyHash;
    if (issuedKeyShape.test(token) && (await isActiveKey(deps.prisma, keyHash, { scope: webhookScope, markUsed: true }))) return keyHash;
    return undefined;
  };
  return {
    isAdmin: sameKey(token, adminApiKey),
    webhookOwner: () => (owner ??= findOwner()),
  };
}

/** Whether the viewer has the scope (a webhook key is looked up here, once). */
export async function hasScope(viewer: Viewer, scope: Scope): Promise<boolean> {
  return scope === 'admin' ? viewer.isAdmin : (await viewer.webhookOwner()) !== undefined;
}
