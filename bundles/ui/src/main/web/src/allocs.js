// Allocations: the shared table, and an allocation's page (task states and events, resource usage, logs with follow,
// the file browser, restart and stop).
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, put, useBlocking, withQuery, streamText, token } from './api.js';
import { html, Link, short, enc, ago, time, bytes, Status, Loading, ErrorBox, Tabs, Action, KeyValues,
  navigate } from './ui.js';

function jobLink(a) {
  const ns = a.Namespace && a.Namespace !== 'default' ? `@${enc(a.Namespace)}` : '';
  return `/jobs/${enc(a.JobID)}${ns}`;
}

export function AllocTable({ allocs, showJob = false, showNode = true }) {
  if (!allocs || allocs.length === 0) return html`<p class="muted">No allocations.</p>`;
  const sorted = [...allocs].sort((a, b) => (b.CreateIndex || 0) - (a.CreateIndex || 0));
  return html`<table class="table" aria-label="Allocations"><thead><tr><th>ID</th>${showJob && html`<th>Job</th>`}
    <th>Group</th><th>Status</th><th class="hide-phone">Desired</th>${showNode && html`<th class="hide-phone">Client</th>`}
    <th class="hide-phone">Version</th><th class="hide-phone">Modified</th></tr></thead><tbody>
    ${sorted.map((a) => html`<tr data-alloc=${a.ID}><td><${Link} to=${`/allocations/${a.ID}`}><code>${short(a.ID)}</code></${Link}></td>
      ${showJob && html`<td><${Link} to=${jobLink(a)}>${a.JobID}</${Link}></td>`}
      <td>${a.TaskGroup}</td><td><${Status} value=${a.ClientStatus} /></td>
      <td class="hide-phone">${a.DesiredStatus}</td>
      ${showNode && html`<td class="hide-phone"><${Link} to=${`/clients/${a.NodeID}`}>${a.NodeName || short(a.NodeID)}</${Link}></td>`}
      <td class="hide-phone">${a.JobVersion}</td><td class="hide-phone">${ago(a.ModifyTime)}</td></tr>`)}
  </tbody></table>`;
}

export function AllocPage({ id, query }) {
  const alloc = useBlocking(`/v1/allocation/${enc(id)}`);
  const [tab, setTab] = useState(query.get('tab') || 'Overview');
  return html`<section><${Loading} state=${alloc}>${(a) => {
    const tasks = Object.keys(a.TaskStates || (a.Job && a.Job.TaskGroups || []).find((g) => g.Name === a.TaskGroup)
      ?.Tasks?.reduce((m, t) => ({ ...m, [t.Name]: {} }), {}) || {});
    const running = a.ClientStatus === 'running' || a.ClientStatus === 'pending';
    return html`
      <nav class="crumbs" aria-label="Breadcrumb"><${Link} to="/jobs">Jobs</${Link}>${' / '}<${Link}
        to=${jobLink(a)}>${a.JobID}</${Link}>${' / '}<span>${a.TaskGroup}</span>${' / '}<span>${short(a.ID)}</span></nav>
      <header class="page-head"><h1>Allocation <code>${short(a.ID)}</code> <${Status} value=${a.ClientStatus} /></h1>
        <div class="actions">${running && html`
          <${Action} label="Restart" confirm="Restart every task of this allocation?"
            onRun=${() => put(`/v1/client/allocation/${enc(a.ID)}/restart`, {})} />
          <${Action} label="Stop" kind="danger" confirm="Stop this allocation? It is replaced if its job still wants it."
            onRun=${() => post(`/v1/allocation/${enc(a.ID)}/stop`)} />`}</div></header>
      <${KeyValues} entries=${[['Job', html`<${Link} to=${jobLink(a)}>${a.JobID}</${Link}>`], ['Task group', a.TaskGroup],
        ['Client', html`<${Link} to=${`/clients/${a.NodeID}`}>${a.NodeName || short(a.NodeID)}</${Link}>`],
        ['Desired', a.DesiredStatus], ['Job version', a.JobVersion], ['Created', time(a.CreateTime)],
        ['Full ID', html`<code>${a.ID}</code>`]]} />
      <${Tabs} tabs=${running ? ['Overview', 'Logs', 'Files', 'Exec'] : ['Overview', 'Logs', 'Files']} current=${tab}
        onSelect=${setTab} />
      ${tab === 'Overview' && html`<${AllocOverview} alloc=${a} running=${running} />`}
      ${tab === 'Logs' && html`<${Logs} alloc=${a} tasks=${tasks} initialTask=${query.get('task')} />`}
      ${tab === 'Files' && html`<${Files} alloc=${a} />`}
      ${tab === 'Exec' && running && html`<${Exec} alloc=${a} tasks=${tasks} />`}`;
  }}</${Loading}></section>`;
}

function AllocOverview({ alloc, running }) {
  const states = alloc.TaskStates || {};
  return html`${running && html`<${Usage} alloc=${alloc} />`}
    <h2>Tasks</h2>
    ${Object.keys(states).length === 0 && html`<p class="muted">No task has started yet.</p>`}
    ${Object.entries(states).map(([name, s]) => html`<article class="card task" data-task=${name}>
      <h3>${name} <${Status} value=${s.State} />${s.Failed && html` <span class="tag bad">failed</span>`}</h3>
      <${KeyValues} entries=${[['Restarts', s.Restarts], ['Started', time(s.StartedAt && Date.parse(s.StartedAt))],
        ['Finished', s.FinishedAt && !s.FinishedAt.startsWith('0001') ? time(Date.parse(s.FinishedAt)) : '']]} />
      <table class="table" aria-label=${`Events of ${name}`}><thead><tr><th>Time</th><th>Type</th><th>Description</th>
        </tr></thead><tbody>${[...(s.Events || [])].reverse().map((e) => html`<tr><td>${time(e.Time)}</td>
          <td>${e.Type}</td><td>${e.DisplayMessage || e.Message || ''}</td></tr>`)}</tbody></table>
    </article>`)}`;
}

// Resource usage: one read every 5 s while the tab is open (the stats endpoint is not a blocking query).
function Usage({ alloc }) {
  const [stats, setStats] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let stop = false;
    let timer;
    const read = async () => {
      try {
        const s = await get(`/v1/client/allocation/${enc(alloc.ID)}/stats`);
        if (!stop) {
          setStats(s);
          setError(null);
        }
      } catch (e) {
        if (!stop) setError(e);
      }
      if (!stop) timer = setTimeout(read, 5000);
    };
    read();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [alloc.ID]);
  const reserved = allocated(alloc);
  const usage = stats && stats.ResourceUsage;
  return html`<h2>Resource usage</h2>${error && html`<p class="muted">Usage not available: ${error.message}</p>`}
    ${usage && html`<div class="meters">
      <${Meter} label="CPU" value=${usage.CpuStats ? Math.round(usage.CpuStats.TotalTicks || 0) : 0}
        max=${reserved.cpu} unit="MHz" />
      <${Meter} label="Memory" value=${usage.MemoryStats ? Math.round((usage.MemoryStats.RSS || usage.MemoryStats.Usage || 0)
        / 1048576) : 0} max=${reserved.memory} unit="MiB" />
    </div>`}`;
}

export function allocated(alloc) {
  let cpu = 0;
  let memory = 0;
  const tasks = (alloc.AllocatedResources && alloc.AllocatedResources.Tasks) || {};
  for (const t of Object.values(tasks)) {
    cpu += (t.Cpu && t.Cpu.CpuShares) || 0;
    memory += (t.Memory && t.Memory.MemoryMB) || 0;
  }
  return { cpu, memory };
}

export function Meter({ label, value, max, unit }) {
  const pct = max ? Math.min(100, Math.round((100 * value) / max)) : 0;
  return html`<div class="meter"><div class="meter-label"><span>${label}</span>
    <span>${value} / ${max || '?'} ${unit}</span></div>
    <progress max="100" value=${pct} aria-label=${`${label}: ${value} of ${max} ${unit}`}>${pct}%</progress></div>`;
}

// Logs: plain=true&follow=true streamed into a <pre>; switching task or stream starts a new stream.
function Logs({ alloc, tasks, initialTask }) {
  const [task, setTask] = useState(initialTask || tasks[0] || '');
  const [type, setType] = useState('stdout');
  const [follow, setFollow] = useState(true);
  const [text, setText] = useState('');
  const [error, setError] = useState(null);
  const pre = useRef(null);
  useEffect(() => {
    if (!task) return undefined;
    setText('');
    setError(null);
    const controller = new AbortController();
    const path = withQuery(`/v1/client/fs/logs/${enc(alloc.ID)}`, { task, type, plain: 'true', origin: 'end',
      offset: 50000, follow: follow ? 'true' : 'false' });
    streamText(path, (chunk) => setText((t) => (t + chunk).slice(-500000)), controller.signal)
      .catch((e) => { if (!controller.signal.aborted) setError(e); });
    return () => controller.abort();
  }, [alloc.ID, task, type, follow]);
  useEffect(() => {
    if (follow && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [text, follow]);
  return html`<div class="log-controls">
      <label class="field inline">Task <select value=${task} onChange=${(e) => setTask(e.target.value)}>
        ${tasks.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
      <div class="segmented" role="group" aria-label="Stream">
        ${['stdout', 'stderr'].map((t) => html`<button type="button" class=${type === t ? 'btn active' : 'btn'}
          aria-pressed=${type === t} onClick=${() => setType(t)}>${t}</button>`)}</div>
      <label class="field inline"><input type="checkbox" checked=${follow}
        onChange=${(e) => setFollow(e.target.checked)} /> Follow</label>
    </div>
    <${ErrorBox} error=${error} />
    <pre class="logs" ref=${pre} tabindex="0" aria-label=${`${type} of ${task}`} aria-live="off"
      data-stream=${type}>${text}</pre>`;
}

function Files({ alloc }) {
  const [path, setPath] = useState('/');
  const [file, setFile] = useState(null);
  const listing = useBlocking(withQuery(`/v1/client/fs/ls/${enc(alloc.ID)}`, { path }), { live: false });
  const open = async (entry) => {
    const full = `${path.replace(/\/$/, '')}/${entry.Name}`;
    if (entry.IsDir) {
      setFile(null);
      setPath(full);
      return;
    }
    try {
      const response = await fetchText(withQuery(`/v1/client/fs/cat/${enc(alloc.ID)}`, { path: full }));
      setFile({ path: full, text: response });
    } catch (e) {
      setFile({ path: full, error: e });
    }
  };
  const up = path === '/' ? null : path.replace(/\/[^/]+\/?$/, '') || '/';
  return html`<nav class="crumbs" aria-label="Folder"><code>${path}</code></nav>
    <${Loading} state=${listing}>${(entries) => html`<table class="table" aria-label="Files"><thead><tr><th>Name</th>
      <th>Size</th><th class="hide-phone">Modified</th></tr></thead><tbody>
      ${up && html`<tr><td><button type="button" class="linkish" onClick=${() => { setFile(null); setPath(up); }}>..</button></td>
        <td></td><td class="hide-phone"></td></tr>`}
      ${(entries || []).map((e) => html`<tr><td><button type="button" class="linkish" onClick=${() => open(e)}>
        ${e.Name}${e.IsDir ? '/' : ''}</button></td><td>${e.IsDir ? '' : bytes(e.Size)}</td>
        <td class="hide-phone">${time(Date.parse(e.ModTime))}</td></tr>`)}</tbody></table>`}</${Loading}>
    ${file && html`<section class="card"><h3><code>${file.path}</code></h3>${file.error ? html`<${ErrorBox} error=${file.error} />`
      : html`<pre class="logs">${file.text.length > 200000 ? `${file.text.slice(0, 200000)}\n…` : file.text}</pre>`}</section>`}`;
}

async function fetchText(path) {
  let text = '';
  await streamText(path, (chunk) => { text += chunk; }, new AbortController().signal);
  return text;
}

const b64 = {
  encode: (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text))),
  decode: (data) => new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0))),
};

// Exec: Nomad's WebSocket protocol (ws_handshake: the token in the first frame, as browsers cannot set headers on a
// WebSocket), in line mode: each line typed is sent with its newline; stdout and stderr are shown as they come.
function Exec({ alloc, tasks }) {
  const [task, setTask] = useState(tasks[0] || '');
  const [command, setCommand] = useState('/bin/sh');
  const [socket, setSocket] = useState(null);
  const [output, setOutput] = useState('');
  const [line, setLine] = useState('');
  const pre = useRef(null);
  useEffect(() => () => socket && socket.close(), [socket]);
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [output]);
  const connect = (e) => {
    e.preventDefault();
    const argv = command.trim().split(/\s+/).filter(Boolean);
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${scheme}//${location.host}${withQuery(`/v1/client/allocation/${enc(alloc.ID)}/exec`,
      { task, command: JSON.stringify(argv), tty: 'false', ws_handshake: 'true' })}`;
    const ws = new WebSocket(url);
    setOutput(`$ ${argv.join(' ')}\n`);
    ws.onopen = () => ws.send(JSON.stringify({ version: 1, auth_token: token.get() }));
    ws.onmessage = (m) => {
      const frame = JSON.parse(m.data);
      for (const stream of ['stdout', 'stderr']) {
        if (frame[stream] && frame[stream].data) setOutput((o) => (o + b64.decode(frame[stream].data)).slice(-200000));
      }
      if (frame.exited) {
        setOutput((o) => `${o}\n[exited with code ${(frame.result && frame.result.exit_code) || 0}]\n`);
      }
    };
    ws.onerror = () => setOutput((o) => `${o}\n[the connection failed]\n`);
    // A refusal (a token that may not exec: 1008) closes with the reason; show it rather than a silent close.
    ws.onclose = (ev) => {
      if (ev.code !== 1000 && ev.code !== 1005 && ev.reason) setOutput((o) => `${o}\n[refused: ${ev.reason}]\n`);
      setSocket(null);
    };
    setSocket(ws);
  };
  const send = (e) => {
    e.preventDefault();
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify({ stdin: { data: b64.encode(`${line}\n`) } }));
    setOutput((o) => `${o}${line}\n`);
    setLine('');
  };
  return html`${!socket ? html`<form class="log-controls" onSubmit=${connect}>
      <label class="field inline">Task <select value=${task} onChange=${(e) => setTask(e.target.value)}>
        ${tasks.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
      <label class="field inline">Command <input value=${command} onInput=${(e) => setCommand(e.target.value)} /></label>
      <button type="submit" class="btn primary">Connect</button></form>`
    : html`<div class="actions"><button type="button" class="btn" onClick=${() => socket.close()}>Disconnect</button></div>`}
    <pre class="logs" ref=${pre} tabindex="0" aria-label="Exec output">${output}</pre>
    ${socket && html`<form class="inline-form" onSubmit=${send}><label class="sr-only" for="exec-line">Input</label>
      <input id="exec-line" class="exec-line" value=${line} autocomplete="off" onInput=${(e) => setLine(e.target.value)} />
      <button type="submit" class="btn">Send</button></form>`}`;
}

export function AllocationsPage() {
  return html`<section><header class="page-head"><h1>Allocations</h1></header>
    <${AllocList} /></section>`;
}

function AllocList() {
  const allocs = useBlocking('/v1/allocations?namespace=*');
  return html`<${Loading} state=${allocs}>${(list) => html`<${AllocTable} allocs=${list} showJob=${true} />`}</${Loading}>`;
}

export { navigate };
