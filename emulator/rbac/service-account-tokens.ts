/**
 * Legacy service-account tokens, as kube-controller-manager's tokens controller and kube-apiserver's legacy
 * token authenticator handle them (k8s.io/kubernetes pkg/controller/serviceaccount/tokens_controller.go,
 * pkg/serviceaccount/legacy.go):
 *
 * - a Secret of type `kubernetes.io/service-account-token` naming an existing ServiceAccount
 *   (annotation `kubernetes.io/service-account.name`, optionally `.uid`) gets `data.token` (a JWT with the
 *   legacy claims), `data["ca.crt"]` (the API server's CA) and `data.namespace`, and the `.uid` annotation;
 * - a token Secret whose ServiceAccount does not exist (or has another uid) is deleted, and deleting a
 *   ServiceAccount deletes its token Secrets;
 * - a bearer token authenticates while its Secret and ServiceAccount exist, are not being deleted and the
 *   Secret still holds exactly that token; the user is `system:serviceaccount:<ns>:<sa>` in the groups
 *   system:serviceaccounts, system:serviceaccounts:<ns> and system:authenticated.
 *
 * The JWT is HMAC-signed with a key of this process (kube uses the service-account key pair); what makes a
 * token valid is the Secret lookup, as with the real legacy authenticator.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock';
import { KindInfo, KubeObject, Store } from '../api/types';
import { Controller, ErrorLog, objectKey, splitKey } from '../controllers/runtime';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';
const ISSUER = 'kubernetes/serviceaccount';
const CLAIM = 'kubernetes.io/serviceaccount/';
const MANAGER = 'kube-controller-manager';
/**
 * Who the tokens controller writes as: kube-controller-manager starts it with its root client builder (its own
 * credentials, not a per-controller service account), so admission sees system:kube-controller-manager.
 */
const CONTROLLER_USER = 'system:kube-controller-manager';

/** An authenticated service account. */
export interface ServiceAccountUser {
  user: string;
  groups: string[];
}

const signingKey = randomBytes(32);

function b64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

function sign(input: string): string {
  return createHmac('sha256', signingKey).update(input).digest('base64url');
}

/** `system:serviceaccount:<ns>:<name>` and its groups. */
export function serviceAccountUser(namespace: string, name: string): ServiceAccountUser {
  return { user: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
}

function mintToken(serviceAccount: KubeObject, secret: KubeObject): string {
  const ns = String(secret.metadata.namespace);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = b64url(
    JSON.stringify({
      iss: ISSUER,
      [`${CLAIM}namespace`]: ns,
      [`${CLAIM}secret.name`]: secret.metadata.name,
      [`${CLAIM}service-account.name`]: serviceAccount.metadata.name,
      [`${CLAIM}service-account.uid`]: serviceAccount.metadata.uid,
      sub: `system:serviceaccount:${ns}:${serviceAccount.metadata.name}`,
    }),
  );
  return `${header}.${claims}.${sign(`${header}.${claims}`)}`;
}

function decodeClaims(token: string): Record<string, string> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`));
  const given = Buffer.from(parts[2]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, string>;
    return claims.iss === ISSUER ? claims : undefined;
  } catch {
    return undefined;
  }
}

interface Kinds {
  secret: KindInfo;
  serviceAccount: KindInfo;
}

function kindsOf(store: Store): Kinds | undefined {
  const secret = store.registry.byKind('v1', 'Secret');
  const serviceAccount = store.registry.byKind('v1', 'ServiceAccount');
  return secret && serviceAccount ? { secret, serviceAccount } : undefined;
}

/** A token authenticator over `store` (undefined when the store serves no ServiceAccounts). */
export function serviceAccountAuthenticator(store: Store): ((token: string) => ServiceAccountUser | undefined) | undefined {
  const kinds = kindsOf(store);
  if (!kinds) return undefined;
  return (token) => {
    const claims = decodeClaims(token);
    if (!claims) return undefined;
    const ns = claims[`${CLAIM}namespace`];
    const secret = store.get(kinds.secret, ns, claims[`${CLAIM}secret.name`]);
    if (!secret || secret.metadata.deletionTimestamp) return undefined;
    const stored = (secret.data as Record<string, string> | undefined)?.token;
    if (!stored || Buffer.from(stored, 'base64').toString('utf8') !== token) return undefined;
    const sa = store.get(kinds.serviceAccount, ns, claims[`${CLAIM}service-account.name`]);
    if (!sa || sa.metadata.deletionTimestamp || sa.metadata.uid !== claims[`${CLAIM}service-account.uid`]) return undefined;
    return serviceAccountUser(ns, String(sa.metadata.name));
  };
}

/** The running tokens controller. */
export interface TokensControllerHandle {
  errors(): ReturnType<ErrorLog['list']>;
  stop(): void;
}

/** Start the tokens controller on `store`; `caCert` (PEM) goes into every token Secret's `ca.crt`. */
export function installServiceAccountTokens(store: Store, clock: Clock, caCert: string | undefined): TokensControllerHandle | undefined {
  const kinds = kindsOf(store);
  if (!kinds) return undefined;
  const errors = new ErrorLog();
  const caData = caCert ? Buffer.from(caCert).toString('base64') : undefined;
  const isToken = (o: KubeObject): boolean => o.type === SERVICE_ACCOUNT_TOKEN_TYPE;
  const tokenSecretsOf = (ns: string, name: string): KubeObject[] =>
    store.list(kinds.secret, { namespace: ns }).items.filter((s) => isToken(s) && s.metadata.annotations?.[SA_NAME_ANNOTATION] === name);

  const reconcile = (key: string): void => {
    const [type, rest] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const { namespace, name } = splitKey(rest);
    if (type === 'sa') {
      // A ServiceAccount gone: its token Secrets go too.
      if (store.get(kinds.serviceAccount, namespace, name)) return;
      for (const s of tokenSecretsOf(namespace!, name)) store.delete(kinds.secret, namespace, s.metadata.name!, { user: CONTROLLER_USER });
      return;
    }
    const secret = store.get(kinds.secret, namespace, name);
    if (!secret || !isToken(secret) || secret.metadata.deletionTimestamp) return;
    const annotations = secret.metadata.annotations ?? {};
    const sa = store.get(kinds.serviceAccount, namespace, annotations[SA_NAME_ANNOTATION] ?? '');
    const wantUid = annotations[SA_UID_ANNOTATION];
    if (!sa || (wantUid && wantUid !== sa.metadata.uid)) {
      store.delete(kinds.secret, namespace, name, { user: CONTROLLER_USER });
      return;
    }
    const data = { ...((secret.data as Record<string, string> | undefined) ?? {}) };
    const needsCa = caData !== undefined && data['ca.crt'] !== caData;
    const nsData = Buffer.from(namespace!).toString('base64');
    const needsNamespace = data.namespace !== nsData;
    const needsToken = !data.token;
    if (!needsCa && !needsNamespace && !needsToken) return;
    if (needsCa) data['ca.crt'] = caData!;
    if (needsNamespace) data.namespace = nsData;
    if (needsToken) data.token = Buffer.from(mintToken(sa, secret)).toString('base64');
    secret.data = data;
    secret.metadata.annotations = { ...annotations, [SA_NAME_ANNOTATION]: String(sa.metadata.name), [SA_UID_ANNOTATION]: String(sa.metadata.uid) };
    store.update(kinds.secret, secret, { fieldManager: MANAGER, user: CONTROLLER_USER });
  };

  const controller = new Controller({ name: 'serviceaccount-tokens-controller', clock, reconcile, errors })
    .watch(store, kinds.secret, (o) => (isToken(o) ? [`secret:${objectKey(o)}`] : []))
    .watch(store, kinds.serviceAccount, (o, type) => {
      const keys = [`sa:${objectKey(o)}`];
      // A ServiceAccount created after its token Secret fills it now.
      if (type !== 'DELETED') for (const s of tokenSecretsOf(o.metadata.namespace!, o.metadata.name!)) keys.push(`secret:${objectKey(s)}`);
      return keys;
    });
  return { errors: () => errors.list(), stop: () => controller.stop() };
}
