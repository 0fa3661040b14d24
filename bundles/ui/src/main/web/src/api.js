// The HTTP API as the UI calls it: the ACL token from localStorage as X-Nomad-Token, errors as ApiError, and
// blocking queries (?index=N&wait=) for live pages, so that a page waits for a change rather than polling.
import { useEffect, useState, useRef } from 'preact/hooks';

const TOKEN_KEY = 'nomad.token';
const listeners = new Set();

export const token = {
  get: () => localStorage.getItem(TOKEN_KEY) || '',
  set(secret) {
    if (secret) localStorage.setItem(TOKEN_KEY, secret);
    else localStorage.removeItem(TOKEN_KEY);
    listeners.forEach((f) => f());
  },
  subscribe(f) {
    listeners.add(f);
    return () => listeners.delete(f);
  },
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
  }
}

// Called with the error of every refused call (a 403): the app sends the user to the sign-in page.
let onForbidden = () => {};
export function setForbiddenHandler(f) {
  onForbidden = f;
}

export async function request(method, path, body, { signal, secret, raw } = {}) {
  const headers = {};
  const t = secret !== undefined ? secret : token.get();
  if (t) headers['X-Nomad-Token'] = t;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
  if (!response.ok) {
    const text = (await response.text()).trim();
    const error = new ApiError(response.status, text || `${response.status} ${response.statusText}`);
    if (response.status === 403 && secret === undefined) onForbidden(error);
    throw error;
  }
  if (raw) return response;
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  return { data, index: Number(response.headers.get('X-Nomad-Index') || 0) };
}

export const get = async (path, opts) => (await request('GET', path, undefined, opts)).data;
export const put = async (path, body) => (await request('PUT', path, body ?? {})).data;
export const post = async (path, body) => (await request('POST', path, body ?? {})).data;
export const del = async (path) => (await request('DELETE', path)).data;

export function withQuery(path, params) {
  const q = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  if (!q) return path;
  return path + (path.includes('?') ? '&' : '?') + q;
}

const WAIT = '60s';

// {data, error, loading} for path, kept current by blocking queries while the component is mounted. A failed call
// is retried with a growing pause (1 s up to 30 s); a refused one (403) stops the loop.
export function useBlocking(path, { live = true } = {}) {
  const [state, setState] = useState({ data: undefined, error: null, loading: true });
  const generation = useRef(0);
  const tokenVersion = useTokenVersion();
  useEffect(() => {
    if (!path) {
      setState({ data: undefined, error: null, loading: false });
      return undefined;
    }
    const mine = ++generation.current;
    const controller = new AbortController();
    let index = 0;
    let pause = 1000;
    setState((s) => ({ ...s, loading: true, error: null }));
    (async () => {
      while (!controller.signal.aborted) {
        try {
          const url = index > 0 ? withQuery(path, { index, wait: WAIT }) : path;
          const result = await request('GET', url, undefined, { signal: controller.signal });
          if (mine !== generation.current) return;
          setState({ data: result.data, error: null, loading: false });
          pause = 1000;
          if (!live || !result.index) return;
          // An index that went backwards (a restored snapshot) starts over; the same one waits again.
          index = result.index < index ? 0 : result.index;
        } catch (e) {
          if (controller.signal.aborted || mine !== generation.current) return;
          setState((s) => ({ ...s, error: e, loading: false }));
          if (e instanceof ApiError && (e.status === 403 || e.status === 404 || e.status === 400)) return;
          await sleep(pause, controller.signal);
          pause = Math.min(pause * 2, 30000);
        }
      }
    })();
    return () => controller.abort();
  }, [path, live, tokenVersion]);
  return state;
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

export function useTokenVersion() {
  const [version, setVersion] = useState(0);
  useEffect(() => token.subscribe(() => setVersion((v) => v + 1)), []);
  return version;
}

// Streams a text body (plain=true logs, follow) into onText until aborted or the stream ends.
export async function streamText(path, onText, signal) {
  const response = await request('GET', path, undefined, { signal, raw: true });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onText(decoder.decode(value, { stream: true }));
  }
}
