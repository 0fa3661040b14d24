// The router (History API under /ui) and the small pieces every page shares.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

export { html };
export const BASE = '/ui';
const routeListeners = new Set();

export function currentLocation() {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search) };
}

export function navigate(to, { replace = false } = {}) {
  const url = to.startsWith(BASE) ? to : BASE + to;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  routeListeners.forEach((f) => f());
  window.scrollTo(0, 0);
}

export function useLocation() {
  const [loc, setLoc] = useState(currentLocation);
  useEffect(() => {
    const update = () => setLoc(currentLocation());
    routeListeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      routeListeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return loc;
}

// A real link (opens in a new tab, keyboard reachable) that navigates in place on a plain click.
export function Link({ to, children, ...rest }) {
  const href = BASE + to;
  const onClick = (e) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return html`<a href=${href} onClick=${onClick} ...${rest}>${children}</a>`;
}

export const short = (id) => (id ? id.slice(0, 8) : '');
export const enc = encodeURIComponent;

export function nsQuery(namespace) {
  return namespace && namespace !== 'default' ? `?namespace=${enc(namespace)}` : '';
}

export function ago(nanosOrMillis) {
  if (!nanosOrMillis) return '';
  const ms = nanosOrMillis > 1e14 ? nanosOrMillis / 1e6 : nanosOrMillis;
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 60) return `${Math.max(s, 0)}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function time(nanosOrMillis) {
  if (!nanosOrMillis) return '';
  const ms = nanosOrMillis > 1e14 ? nanosOrMillis / 1e6 : nanosOrMillis;
  return new Date(ms).toLocaleString();
}

export function bytes(n) {
  if (n === undefined || n === null) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

export function Status({ value }) {
  const v = (value || 'unknown').toLowerCase();
  return html`<span class=${`status status-${v.replace(/[^a-z]/g, '')}`}>${value || 'unknown'}</span>`;
}

export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><strong>${error.status ? `Error ${error.status}` : 'Error'}</strong>
    <pre>${error.message}</pre></div>`;
}

export function Loading({ state, children }) {
  if (state.error && state.data === undefined) return html`<${ErrorBox} error=${state.error} />`;
  if (state.data === undefined) return html`<p class="muted" aria-busy="true">Loading…</p>`;
  return children(state.data);
}

// Allocation counts as one stacked bar with a legend; the numbers are written out for screen readers.
const PARTS = ['Running', 'Starting', 'Queued', 'Complete', 'Failed', 'Lost', 'Unknown'];
export function sumSummary(summary) {
  const total = Object.fromEntries(PARTS.map((p) => [p, 0]));
  for (const group of Object.values(summary || {})) {
    for (const p of PARTS) total[p] += group[p] || 0;
  }
  return total;
}

export function AllocBar({ counts, legend = false }) {
  const sum = PARTS.reduce((a, p) => a + (counts[p] || 0), 0);
  const text = PARTS.filter((p) => counts[p]).map((p) => `${counts[p]} ${p.toLowerCase()}`).join(', ') || 'none';
  return html`<div class="allocbar-wrap">
    <div class="allocbar" role="img" aria-label=${`Allocations: ${text}`} title=${text}>
      ${sum === 0 ? html`<span class="seg seg-empty" style="width:100%"></span>`
        : PARTS.filter((p) => counts[p]).map((p) => html`<span class=${`seg seg-${p.toLowerCase()}`}
            style=${`width:${(100 * counts[p]) / sum}%`}></span>`)}
    </div>
    ${legend && html`<ul class="legend">${PARTS.map((p) => html`<li><span class=${`dot seg-${p.toLowerCase()}`}></span>
      ${p} <strong>${counts[p] || 0}</strong></li>`)}</ul>`}
  </div>`;
}

export function Tabs({ tabs, current, onSelect }) {
  return html`<div class="tabs" role="tablist">${tabs.map((t) => html`<button role="tab" type="button"
    aria-selected=${t === current} class=${t === current ? 'tab active' : 'tab'} onClick=${() => onSelect(t)}>${t}</button>`)}
  </div>`;
}

// A button whose action runs once at a time and shows its failure next to it.
export function Action({ label, confirm, onRun, kind = '', disabled = false }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const run = async () => {
    if (confirm && !window.confirm(confirm)) return;
    setBusy(true);
    setError(null);
    try {
      await onRun();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return html`<span class="action"><button type="button" class=${`btn ${kind}`} disabled=${busy || disabled}
    onClick=${run}>${busy ? `${label}…` : label}</button>${error && html`<span class="inline-error" role="alert">
    ${error.message}</span>`}</span>`;
}

export function KeyValues({ entries }) {
  return html`<dl class="kv">${entries.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) =>
    html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}
