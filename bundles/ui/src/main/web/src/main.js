// The app shell: navigation, routes, and the sign-in redirect on any refused (403) call.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setForbiddenHandler, token, useTokenVersion } from './api.js';
import { html, Link, navigate, useLocation, currentLocation } from './ui.js';
import { JobsPage, JobPage, RunPage, DispatchPage, EvaluationsPage } from './jobs.js';
import { AllocPage, AllocationsPage } from './allocs.js';
import { ClientsPage, ClientPage, ServersPage, TopologyPage } from './cluster.js';
import { VariablesPage, VariablePage, ServicesPage } from './data.js';
import { SignInPage, exchangeOneTimeToken, rememberReturn } from './signin.js';

const NAV = [
  ['/jobs', 'Jobs'], ['/clients', 'Clients'], ['/servers', 'Servers'], ['/topology', 'Topology'],
  ['/evaluations', 'Evaluations'], ['/allocations', 'Allocations'], ['/variables', 'Variables'],
  ['/services', 'Services'],
];

// [pattern, page]: patterns match whole segments; ":x" captures one segment, "*x" the rest.
const ROUTES = [
  ['/jobs', (p) => html`<${JobsPage} ...${p} />`],
  ['/jobs/run', (p) => html`<${RunPage} ...${p} />`],
  ['/jobs/:param/dispatch', (p) => html`<${DispatchPage} ...${p} />`],
  ['/jobs/:param', (p) => html`<${JobPage} key=${p.param} ...${p} />`],
  ['/allocations', (p) => html`<${AllocationsPage} ...${p} />`],
  ['/allocations/:id', (p) => html`<${AllocPage} key=${p.id} ...${p} />`],
  ['/clients', (p) => html`<${ClientsPage} ...${p} />`],
  ['/clients/:id', (p) => html`<${ClientPage} key=${p.id} ...${p} />`],
  ['/servers', (p) => html`<${ServersPage} ...${p} />`],
  ['/topology', (p) => html`<${TopologyPage} ...${p} />`],
  ['/evaluations', (p) => html`<${EvaluationsPage} ...${p} />`],
  ['/variables', (p) => html`<${VariablesPage} ...${p} />`],
  ['/variables/new', (p) => html`<${VariablePage} isNew=${true} ...${p} />`],
  ['/variables/var/*param', (p) => html`<${VariablePage} key=${p.param} ...${p} />`],
  ['/services', (p) => html`<${ServicesPage} ...${p} />`],
  ['/settings/tokens', (p) => html`<${SignInPage} ...${p} />`],
];

export function match(pattern, path) {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  const params = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith('*')) {
      params[want[i].slice(1)] = have.slice(i).join('/');
      return have.length > i ? params : null;
    }
    if (i >= have.length) return null;
    if (want[i].startsWith(':')) params[want[i].slice(1)] = have[i];
    else if (want[i] !== have[i]) return null;
  }
  return want.length === have.length ? params : null;
}

function App({ ottError }) {
  const { path, query } = useLocation();
  const [menu, setMenu] = useState(false);
  useTokenVersion();
  useEffect(() => setMenu(false), [path]);
  if (path === '/' || path === '') {
    navigate('/jobs', { replace: true });
    return null;
  }
  let page = null;
  for (const [pattern, view] of ROUTES) {
    const params = match(pattern, path);
    if (params) {
      page = view({ ...params, query, ottError });
      break;
    }
  }
  const signedIn = !!token.get();
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top"><${Link} to="/jobs" class="brand">Caravan</${Link}>
      <button type="button" class="btn menu-toggle" aria-expanded=${menu} aria-controls="nav"
        onClick=${() => setMenu(!menu)}>Menu</button>
      <nav id="nav" class=${menu ? 'nav open' : 'nav'} aria-label="Main">
        ${NAV.map(([to, label]) => html`<${Link} to=${to} aria-current=${path.startsWith(to) ? 'page' : undefined}>${label}</${Link}>`)}
        <${Link} to="/settings/tokens" class="signin-link" aria-current=${path.startsWith('/settings') ? 'page' : undefined}>
          ${signedIn ? 'ACL Token' : 'Sign In'}</${Link}>
      </nav></header>
    <main id="main" tabindex="-1">${page || html`<section><h1>Not found</h1><p>Nothing lives at <code>/ui${path}</code>.
      <${Link} to="/jobs">Go to jobs</${Link}>.</p></section>`}</main>`;
}

setForbiddenHandler(() => {
  const { path } = currentLocation();
  if (path.startsWith('/settings/tokens')) return;
  rememberReturn(path + location.search);
  navigate('/settings/tokens', { replace: true });
});

// A one-time token that cannot be exchanged leaves the user on the sign-in page, with the reason.
exchangeOneTimeToken().then((ottError) => {
  if (ottError) {
    const { path } = currentLocation();
    rememberReturn(path + location.search);
    history.replaceState(null, '', '/ui/settings/tokens');
  }
  render(html`<${App} ottError=${ottError} />`, document.getElementById('app'));
});
