// The cluster: clients (list, detail with eligibility and drain), servers (members, leader, Raft peers) and the
// topology (allocated against available CPU and memory per client).
import { useState } from 'preact/hooks';
import { post, useBlocking } from './api.js';
import { html, Link, short, enc, time, Status, Loading, KeyValues, Action } from './ui.js';
import { AllocTable, allocated, Meter } from './allocs.js';

export function ClientsPage() {
  const nodes = useBlocking('/v1/nodes');
  const [search, setSearch] = useState('');
  return html`<section><header class="page-head"><h1>Clients</h1></header>
    <div class="filters" role="search"><label class="field inline">Search <input type="search" value=${search}
      onInput=${(e) => setSearch(e.target.value)} placeholder="Name, ID or datacenter" /></label></div>
    <${Loading} state=${nodes}>${(list) => html`<table class="table" aria-label="Clients"><thead><tr><th>ID</th>
      <th>Name</th><th>Status</th><th>Eligibility</th><th class="hide-phone">Datacenter</th>
      <th class="hide-phone">Node pool</th><th class="hide-phone">Address</th></tr></thead><tbody>
      ${list.filter((n) => !search || [n.ID, n.Name, n.Datacenter].some((v) => (v || '').includes(search)))
        .map((n) => html`<tr><td><${Link} to=${`/clients/${n.ID}`}><code>${short(n.ID)}</code></${Link}></td>
        <td>${n.Name}</td><td><${Status} value=${n.Status} />${n.Drain && html` <span class="tag">draining</span>`}</td>
        <td>${n.SchedulingEligibility}</td><td class="hide-phone">${n.Datacenter}</td>
        <td class="hide-phone">${n.NodePool}</td><td class="hide-phone">${n.Address}</td></tr>`)}
    </tbody></table>`}</${Loading}></section>`;
}

export function ClientPage({ id }) {
  const node = useBlocking(`/v1/node/${enc(id)}`);
  const allocs = useBlocking(`/v1/node/${enc(id)}/allocations`);
  return html`<section>
    <nav class="crumbs" aria-label="Breadcrumb"><${Link} to="/clients">Clients</${Link}>${' / '}<span>${short(id)}</span></nav>
    <${Loading} state=${node}>${(n) => html`
      <header class="page-head"><h1>${n.Name} <${Status} value=${n.Status} /></h1></header>
      <${KeyValues} entries=${[['ID', html`<code>${n.ID}</code>`], ['Address', n.HTTPAddr], ['Datacenter', n.Datacenter],
        ['Node pool', n.NodePool], ['Class', n.NodeClass], ['Eligibility', n.SchedulingEligibility],
        ['Draining', n.DrainStrategy ? `yes, deadline ${n.DrainStrategy.ForceDeadline
          && !n.DrainStrategy.ForceDeadline.startsWith('0001') ? time(Date.parse(n.DrainStrategy.ForceDeadline)) : 'none'}` : 'no']]} />
      <${NodeControls} node=${n} />
      <h2>Allocations</h2>
      <${Loading} state=${allocs}>${(list) => html`<${AllocTable} allocs=${list} showJob=${true} showNode=${false} />`}</${Loading}>
      <h2>Drivers</h2>
      <table class="table" aria-label="Drivers"><thead><tr><th>Driver</th><th>Detected</th><th>Healthy</th>
        <th class="hide-phone">Description</th></tr></thead><tbody>
        ${Object.entries(n.Drivers || {}).sort().map(([name, d]) => html`<tr><td>${name}</td>
          <td>${d.Detected ? 'yes' : 'no'}</td><td>${d.Healthy ? 'yes' : 'no'}</td>
          <td class="hide-phone">${d.HealthDescription}</td></tr>`)}</tbody></table>
      <h2>Attributes</h2>
      <table class="table attrs" aria-label="Attributes"><tbody>${Object.entries(n.Attributes || {}).sort()
        .map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</tbody></table>
      ${n.Meta && Object.keys(n.Meta).length > 0 && html`<h2>Meta</h2><table class="table attrs" aria-label="Meta"><tbody>
        ${Object.entries(n.Meta).sort().map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</tbody></table>`}
    `}</${Loading}></section>`;
}

function NodeControls({ node }) {
  const [deadline, setDeadline] = useState('1h');
  const [ignoreSystem, setIgnoreSystem] = useState(false);
  const eligible = node.SchedulingEligibility === 'eligible';
  const base = `/v1/node/${enc(node.ID)}`;
  const drain = () => {
    const seconds = parseDuration(deadline);
    if (seconds === null) throw new Error(`Deadline "${deadline}" is not a duration like 30m or 1h (0: no deadline)`);
    return post(`${base}/drain`, { NodeID: node.ID, DrainSpec: { Deadline: seconds * 1e9,
      IgnoreSystemJobs: ignoreSystem }, Meta: { message: 'drained from the web UI' } });
  };
  return html`<div class="card controls"><h2>Scheduling</h2><div class="actions">
    <${Action} label=${eligible ? 'Mark ineligible' : 'Mark eligible'} onRun=${() => post(`${base}/eligibility`,
      { NodeID: node.ID, Eligibility: eligible ? 'ineligible' : 'eligible' })} />
    ${node.DrainStrategy ? html`<${Action} label="Stop drain" onRun=${() => post(`${base}/drain`,
      { NodeID: node.ID, DrainSpec: null, MarkEligible: true })} />`
    : html`<form class="inline-form" onSubmit=${(e) => e.preventDefault()}>
      <label class="field inline">Deadline <input class="narrow" value=${deadline}
        onInput=${(e) => setDeadline(e.target.value)} /></label>
      <label class="field inline"><input type="checkbox" checked=${ignoreSystem}
        onChange=${(e) => setIgnoreSystem(e.target.checked)} /> Ignore system jobs</label>
      <${Action} label="Drain" kind="danger" confirm=${`Drain ${node.Name}?`} onRun=${drain} /></form>`}
  </div></div>`;
}

// "90s", "30m", "1h30m", "0"; null when unreadable.
export function parseDuration(text) {
  const t = text.trim();
  if (t === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(h|m|s)/g;
  let total = 0;
  let consumed = 0;
  let m;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * { h: 3600, m: 60, s: 1 }[m[2]];
    consumed += m[0].length;
  }
  return consumed === t.length && consumed > 0 ? total : null;
}

export function ServersPage() {
  const members = useBlocking('/v1/agent/members', { live: false });
  const leader = useBlocking('/v1/status/leader', { live: false });
  const raft = useBlocking('/v1/operator/raft/configuration', { live: false });
  return html`<section><header class="page-head"><h1>Servers</h1></header>
    <${Loading} state=${members}>${(m) => html`<table class="table" aria-label="Servers"><thead><tr><th>Name</th>
      <th>Status</th><th>Leader</th><th class="hide-phone">Address</th><th class="hide-phone">Datacenter</th>
      <th class="hide-phone">Version</th></tr></thead><tbody>
      ${(m.Members || []).map((s) => html`<tr><td>${s.Name}</td><td><${Status} value=${s.Status} /></td>
        <td>${isLeader(s, raft.data, leader.data) ? 'yes' : ''}</td>
        <td class="hide-phone">${s.Addr}:${s.Port}</td><td class="hide-phone">${(s.Tags || {}).dc}</td>
        <td class="hide-phone">${(s.Tags || {}).build}</td></tr>`)}</tbody></table>`}</${Loading}>
    <p>Leader: <code>${leader.data || 'none'}</code></p>
    <h2>Raft peers</h2>
    <${Loading} state=${raft}>${(r) => html`<table class="table" aria-label="Raft peers"><thead><tr><th>Node</th>
      <th>Address</th><th>Leader</th><th>Voter</th></tr></thead><tbody>${(r.Servers || []).map((p) => html`<tr>
        <td>${p.Node}</td><td>${p.Address}</td><td>${p.Leader ? 'yes' : ''}</td><td>${p.Voter ? 'yes' : 'no'}</td>
      </tr>`)}</tbody></table>`}</${Loading}></section>`;
}

// The leader by its Raft peer entry (names match), else by its address and RPC port.
function isLeader(member, raft, leader) {
  const peer = ((raft && raft.Servers) || []).find((p) => p.Leader);
  if (peer) return peer.Node === member.Name || peer.Node.split('.')[0] === member.Name.split('.')[0];
  const tags = member.Tags || {};
  return !!leader && leader === `${member.Addr}:${tags.port}`;
}

export function TopologyPage() {
  const nodes = useBlocking('/v1/nodes?resources=true');
  const allocs = useBlocking('/v1/allocations?namespace=*&resources=true');
  return html`<section><header class="page-head"><h1>Topology</h1></header>
    <${Loading} state=${nodes}>${(list) => {
      const running = (allocs.data || []).filter((a) => a.ClientStatus === 'running' || a.ClientStatus === 'pending');
      let cpuUsed = 0;
      let cpuTotal = 0;
      let memUsed = 0;
      let memTotal = 0;
      const rows = list.map((n) => {
        const mine = running.filter((a) => a.NodeID === n.ID);
        const used = mine.map(allocated).reduce((s, r) => ({ cpu: s.cpu + r.cpu, memory: s.memory + r.memory }),
          { cpu: 0, memory: 0 });
        const res = n.NodeResources || {};
        const cpu = (res.Cpu && res.Cpu.CpuShares) || 0;
        const mem = (res.Memory && res.Memory.MemoryMB) || 0;
        cpuUsed += used.cpu;
        cpuTotal += cpu;
        memUsed += used.memory;
        memTotal += mem;
        return { n, used, cpu, mem, count: mine.length };
      });
      return html`<div class="card"><h2>Cluster</h2><p>${list.length} clients, ${running.length} allocations</p>
        <div class="meters"><${Meter} label="CPU" value=${cpuUsed} max=${cpuTotal} unit="MHz" />
          <${Meter} label="Memory" value=${memUsed} max=${memTotal} unit="MiB" /></div></div>
        <ul class="cards topology">${rows.map(({ n, used, cpu, mem, count }) => html`<li class="card">
          <h3><${Link} to=${`/clients/${n.ID}`}>${n.Name}</${Link}> <${Status} value=${n.Status} /></h3>
          <p class="muted">${n.Datacenter} · ${count} allocations</p>
          <div class="meters"><${Meter} label="CPU" value=${used.cpu} max=${cpu} unit="MHz" />
            <${Meter} label="Memory" value=${used.memory} max=${mem} unit="MiB" /></div></li>`)}</ul>`;
    }}</${Loading}></section>`;
}
