// A real OAuth 2 authorization server (oidc-provider, certified) and, on
// the same origin, a resource server that checks its tokens: what the
// generated client's OAuth tests (`tests/tests/oauth.rs`) run against.
//
//   node server.mjs [client_secret_basic|client_secret_post]
//
// prints `listening on http://127.0.0.1:PORT` once it serves. The argument
// is the one client authentication method the server takes (both when
// omitted), as its metadata says. Routes:
//
// - /oauth/token, /oauth/revoke, /oauth/device, /.well-known/*: the
//   authorization server (RFC 6749, 7009, 8628, 8414).
// - GET, POST /v1/reports (scopes `reports:read`, `reports:write`), GET
//   /v1/me: the resource server of `crates/apigen/tests/snapshots/partner_reports.yaml`;
//   GET /me: `tour32.yaml`'s.
//   A token it does not know, or that expired or was revoked, is 401
//   `invalid_token`.
// - GET /control/log: every token request (grant, scope, how the client
//   authenticated, the outcome) and every API call (token, status).
// - POST /control/approve?user_code=X: the user approves a device code.
// - GET /control/expired?token=X: answers once the server no longer takes
//   the token, at its expiry (at once when it does not know it).
// - POST /control/forget?token=X: the server no longer takes an access
//   token (and still takes its refresh token).

import http from 'node:http';
import Provider from 'oidc-provider';

const only = process.argv[2];
const methods = only ? [only] : ['client_secret_basic', 'client_secret_post'];

const log = { grants: [], api: [] };
let handler = (_req, res) => res.writeHead(503).end();
const server = http.createServer((req, res) => handler(req, res));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;

const machine = (id, scope, extra = {}) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  scope,
  token_endpoint_auth_method: methods[0],
  ...extra,
});

const provider = new Provider(issuer, {
  clients: [
    // Reads and files reports.
    machine('reporting', 'reports:read reports:write'),
    // May only read.
    machine('reader', 'reports:read'),
    // Its tokens live two seconds.
    machine('short-lived', 'reports:read'),
    // A device without a browser: a public client with refresh tokens.
    {
      client_id: 'device',
      token_endpoint_auth_method: 'none',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      response_types: [],
      redirect_uris: [],
      scope: 'openid offline_access read:pets',
    },
  ],
  // 'none': the device, a public client.
  clientAuthMethods: [...methods, 'none'],
  scopes: ['openid', 'offline_access', 'reports:read', 'reports:write', 'read:pets'],
  features: {
    clientCredentials: { enabled: true },
    deviceFlow: { enabled: true },
    revocation: { enabled: true },
    devInteractions: { enabled: false },
  },
  routes: {
    token: '/oauth/token',
    revocation: '/oauth/revoke',
    device_authorization: '/oauth/device',
    code_verification: '/oauth/device/verify',
  },
  ttl: {
    ClientCredentials: (_ctx, _token, client) => (client.clientId === 'short-lived' ? 2 : 600),
    // The device's access tokens live four seconds.
    AccessToken: (_ctx, _token, client) => (client?.clientId === 'device' ? 4 : 600),
    IdToken: 600,
    DeviceCode: 600,
    RefreshToken: 3600,
    Grant: 3600,
  },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
});

const record = (ctx, outcome) => {
  const params = ctx.oidc?.params ?? {};
  log.grants.push({
    grant_type: params.grant_type,
    scope: params.scope ?? null,
    client_id: ctx.oidc?.client?.clientId ?? null,
    basic: Boolean(ctx.headers.authorization),
    outcome,
  });
};
provider.on('grant.success', (ctx) => record(ctx, 'issued'));
provider.on('grant.error', (ctx, error) => record(ctx, error.error ?? String(error)));

const answer = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

// A token the server issued and still takes: a client credentials token
// or a user's access token.
const find = async (token) => {
  const found = (await provider.ClientCredentials.find(token)) ?? (await provider.AccessToken.find(token));
  return found && !found.isExpired ? found : undefined;
};

const SCOPES = { 'GET /v1/reports': 'reports:read', 'POST /v1/reports': 'reports:write' };

const api = async (req, res, path) => {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  const token = bearer?.[1];
  const found = token ? await find(token) : undefined;
  const entry = { method: req.method, path, token: token ?? null };
  log.api.push(entry);
  const refuse = (status, challenge, message) => {
    entry.status = status;
    answer(res, status, { code: 'unauthorized', message }, { 'www-authenticate': challenge });
  };
  if (!token) return refuse(401, 'Bearer realm="reports"', 'no token');
  if (!found) {
    return refuse(401, 'Bearer realm="reports", error="invalid_token"', 'the token is not taken');
  }
  const needed = SCOPES[`${req.method} ${path}`];
  if (needed && !found.scope?.split(' ').includes(needed)) {
    return refuse(403, `Bearer error="insufficient_scope", scope="${needed}"`, `${needed} is needed`);
  }
  entry.status = req.method === 'POST' ? 201 : 200;
  const subject = found.accountId ?? found.clientId;
  if (path === '/v1/me') return answer(res, 200, { subject });
  // `tour32`'s: the subject alone.
  if (path === '/me') return answer(res, 200, subject);
  if (req.method === 'POST') {
    let body = '';
    for await (const chunk of req) body += chunk;
    return answer(res, 201, { id: 7, ...JSON.parse(body || '{}') });
  }
  return answer(res, 200, [{ id: 1, title: 'First quarter' }]);
};

const control = async (req, res, url) => {
  if (url.pathname === '/control/log') return answer(res, 200, log);
  if (url.pathname === '/control/expired') {
    // Waits for the token's own expiry time (`exp`, in whole seconds).
    const token = url.searchParams.get('token');
    for (let found = await find(token); found; found = await find(token)) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(10, found.exp * 1000 - Date.now())));
    }
    return answer(res, 200, { expired: true });
  }
  if (url.pathname === '/control/forget' && req.method === 'POST') {
    // The server stops taking one access token, and nothing else (RFC
    // 7009 revocation of an access token ends its whole grant here).
    const token = await provider.AccessToken.find(url.searchParams.get('token'));
    await token?.destroy();
    return answer(res, 200, { forgotten: Boolean(token) });
  }
  if (url.pathname === '/control/approve' && req.method === 'POST') {
    // Stored as the verification page reads it: letters and digits only.
    const typed = url.searchParams.get('user_code') ?? '';
    const code = await provider.DeviceCode.findByUserCode(typed.replace(/[^A-Za-z0-9]/g, '').toUpperCase());
    if (!code) return answer(res, 404, { error: 'no such user code' });
    // What the user grants: every scope the device asked for.
    const scope = code.params.scope ?? '';
    const grant = new provider.Grant({ accountId: 'alice', clientId: code.clientId });
    grant.addOIDCScope(scope);
    grant.addResourceScope(issuer, scope);
    code.grantId = await grant.save();
    code.accountId = 'alice';
    code.scope = scope;
    code.authTime = Math.floor(Date.now() / 1000);
    await code.save();
    return answer(res, 200, { approved: true });
  }
  return answer(res, 404, { error: 'no such control' });
};

const callback = provider.callback();
handler = (req, res) => {
  const url = new URL(req.url, issuer);
  if (url.pathname.startsWith('/v1/') || url.pathname === '/me') return api(req, res, url.pathname);
  if (url.pathname.startsWith('/control/')) {
    return control(req, res, url).catch((error) => answer(res, 500, { error: String(error) }));
  }
  if (url.pathname === '/.well-known/oauth-authorization-server') {
    // RFC 8414's name for what OpenID Connect's discovery serves.
    req.url = '/.well-known/openid-configuration';
  }
  return callback(req, res);
};

console.log(`listening on ${issuer}`);
