// ACL sign-in (Nomad's /ui/settings/tokens): a secret is checked with /v1/acl/token/self before it is kept, and a
// one-time token (?ott= on any UI URL) is exchanged for a secret and removed from the address bar.
import { useState } from 'preact/hooks';
import { post, request, token, useBlocking } from './api.js';
import { html, navigate, ErrorBox, Loading, KeyValues } from './ui.js';

const RETURN_KEY = 'nomad.signin.return';

export function rememberReturn(path) {
  if (!path.startsWith('/settings/tokens')) sessionStorage.setItem(RETURN_KEY, path);
}

function returnPath() {
  const path = sessionStorage.getItem(RETURN_KEY) || '/jobs';
  sessionStorage.removeItem(RETURN_KEY);
  return path;
}

export async function exchangeOneTimeToken() {
  const url = new URL(location.href);
  const ott = url.searchParams.get('ott');
  if (!ott) return null;
  url.searchParams.delete('ott');
  history.replaceState(null, '', url.pathname + url.search + url.hash);
  try {
    const result = await post('/v1/acl/token/onetime/exchange', { OneTimeSecretID: ott });
    token.set(result.Token.SecretID);
    return null;
  } catch (e) {
    return { status: e.status, message: `The one-time token could not be exchanged: ${e.message}` };
  }
}

export function SignInPage({ ottError }) {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState(ottError || null);
  const [busy, setBusy] = useState(false);
  const current = token.get();
  const self = useBlocking(current ? '/v1/acl/token/self' : null, { live: false });
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await request('GET', '/v1/acl/token/self', undefined, { secret: secret.trim() });
      token.set(secret.trim());
      navigate(returnPath(), { replace: true });
    } catch (err) {
      setError(err.status === 403 ? { status: 403, message: `Token not accepted: ${err.message}` } : err);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="signin">
    <h1>Sign in</h1>
    ${current && html`<div class="card"><h2>Signed in</h2><${Loading} state=${self}>${(t) => html`<${KeyValues}
      entries=${[['Name', t.Name], ['Type', t.Type], ['Accessor', html`<code>${t.AccessorID}</code>`],
        ['Policies', (t.Policies || []).join(', ')]]} />`}</${Loading}>
      <button type="button" class="btn" onClick=${() => token.set('')}>Sign out</button></div>`}
    <p>Enter an ACL token's Secret ID to use this cluster. The token is kept in this browser only.</p>
    <form onSubmit=${submit} class="signin-form">
      <label class="field" for="secret">Secret ID</label>
      <input id="secret" name="secret" type="password" autocomplete="off" required value=${secret}
        placeholder="XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" onInput=${(e) => setSecret(e.target.value)} />
      <div class="actions"><button type="submit" class="btn primary" disabled=${busy || !secret.trim()}>Sign in</button></div>
    </form>
    <${ErrorBox} error=${error} />
  </section>`;
}
