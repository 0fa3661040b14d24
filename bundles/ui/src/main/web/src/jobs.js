// Jobs: the list (filters, search, namespace), a job's page (groups, allocations, versions with diffs, deployments,
// evaluations, stop/purge/scale/dispatch) and running a job from an editor (HCL or JSON, plan, run).
import { useEffect, useState } from 'preact/hooks';
import { get, post, del, useBlocking, withQuery } from './api.js';
import { html, Link, navigate, short, enc, ago, time, Status, Loading, ErrorBox, AllocBar, sumSummary, Tabs,
  Action, KeyValues } from './ui.js';
import { AllocTable } from './allocs.js';

const STATUSES = ['pending', 'running', 'dead'];
const TYPES = ['service', 'batch', 'system', 'sysbatch'];

export function jobPath(id, namespace) {
  return `/jobs/${enc(id)}${namespace && namespace !== 'default' ? `@${enc(namespace)}` : ''}`;
}

export function parseJobParam(param) {
  const at = param.lastIndexOf('@');
  return at > 0 ? { id: decodeURIComponent(param.slice(0, at)), namespace: decodeURIComponent(param.slice(at + 1)) }
    : { id: decodeURIComponent(param), namespace: 'default' };
}

export function NamespaceSelect({ value, onChange, all = true }) {
  const namespaces = useBlocking('/v1/namespaces');
  const names = (namespaces.data || []).map((n) => n.Name);
  if (!names.includes('default')) names.unshift('default');
  return html`<label class="field inline">Namespace
    <select value=${value} onChange=${(e) => onChange(e.target.value)}>
      ${all && html`<option value="*">All namespaces</option>`}
      ${names.map((n) => html`<option value=${n}>${n}</option>`)}
    </select></label>`;
}

export function JobsPage({ query }) {
  const namespace = query.get('namespace') || '*';
  const [search, setSearch] = useState(query.get('search') || '');
  const [status, setStatus] = useState(query.get('status') || '');
  const [type, setType] = useState(query.get('type') || '');
  const jobs = useBlocking(withQuery('/v1/jobs', { namespace }));
  const setNamespace = (ns) => navigate(`/jobs${ns === '*' ? '' : `?namespace=${enc(ns)}`}`, { replace: true });
  return html`<section>
    <header class="page-head"><h1>Jobs</h1>
      <${Link} to="/jobs/run" class="btn primary">Run Job</${Link}></header>
    <div class="filters" role="search">
      <label class="field inline">Search <input type="search" value=${search} placeholder="Search jobs…"
        onInput=${(e) => setSearch(e.target.value)} /></label>
      <${NamespaceSelect} value=${namespace} onChange=${setNamespace} />
      <label class="field inline">Status <select value=${status} onChange=${(e) => setStatus(e.target.value)}>
        <option value="">Any</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
      <label class="field inline">Type <select value=${type} onChange=${(e) => setType(e.target.value)}>
        <option value="">Any</option>${TYPES.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
    </div>
    <${Loading} state=${jobs}>${(list) => {
      const shown = list.filter((j) => (!status || j.Status === status) && (!type || j.Type === type)
        && (!search || j.ID.toLowerCase().includes(search.toLowerCase())
          || (j.Name || '').toLowerCase().includes(search.toLowerCase())));
      if (list.length === 0) {
        return html`<div class="empty"><h2>No jobs</h2><p>There are no jobs here yet.
          <${Link} to="/jobs/run">Run a job</${Link}> to get started.</p></div>`;
      }
      return html`<table class="table" aria-label="Jobs"><thead><tr><th>Name</th><th>Status</th><th>Type</th>
        <th class="hide-phone">Namespace</th><th class="hide-phone">Priority</th><th>Allocations</th></tr></thead>
        <tbody>${shown.map((j) => html`<tr data-job=${j.ID}>
          <td><${Link} to=${jobPath(j.ID, j.Namespace)}>${j.Name || j.ID}</${Link}>
            ${j.ParameterizedJob && !j.ParentID && html` <span class="tag">parameterized</span>`}
            ${j.Periodic && html` <span class="tag">periodic</span>`}</td>
          <td><${Status} value=${j.Status} /></td><td>${j.Type}</td>
          <td class="hide-phone">${j.Namespace}</td><td class="hide-phone">${j.Priority}</td>
          <td class="bar-cell"><${AllocBar} counts=${sumSummary(j.JobSummary && j.JobSummary.Summary)} /></td>
        </tr>`)}</tbody></table>
        ${shown.length === 0 && html`<p class="muted">No job matches these filters.</p>`}`;
    }}</${Loading}>
  </section>`;
}

export function JobPage({ param, query }) {
  const { id, namespace } = parseJobParam(param);
  const ns = { namespace };
  const base = `/v1/job/${enc(id)}`;
  const job = useBlocking(withQuery(base, ns));
  const summary = useBlocking(withQuery(`${base}/summary`, ns));
  const [tab, setTab] = useState(query.get('tab') || 'Overview');
  return html`<section>
    <nav class="crumbs" aria-label="Breadcrumb"><${Link} to="/jobs">Jobs</${Link}>${' / '}<span>${id}</span></nav>
    <${Loading} state=${job}>${(j) => html`
      <header class="page-head"><h1>${j.Name || j.ID} <${Status} value=${j.Status} />${j.Stop && html`<span class="tag">stopped</span>`}</h1>
        <div class="actions">
          ${j.ParameterizedJob && !j.Dispatched && html`<${Link} class="btn"
            to=${`${jobPath(id, namespace)}/dispatch`}>Dispatch</${Link}>`}
          <${Link} class="btn" to=${`/jobs/run?job=${enc(id)}&namespace=${enc(namespace)}`}>Edit</${Link}>
          ${!j.Stop && html`<${Action} label="Stop Job" kind="danger" confirm=${`Stop job ${id}?`}
            onRun=${() => del(withQuery(base, ns))} />`}
          ${j.Stop && html`<${Action} label="Start Job" onRun=${() => post(withQuery(base, ns),
            { Job: { ...j, Stop: false } })} />`}
          <${Action} label="Purge" kind="danger" confirm=${`Purge job ${id}? Its history is deleted.`}
            onRun=${async () => { await del(withQuery(base, { ...ns, purge: 'true' })); navigate('/jobs'); }} />
        </div></header>
      <${KeyValues} entries=${[['Type', j.Type], ['Priority', j.Priority], ['Namespace', j.Namespace],
        ['Version', j.Version], ['Datacenters', (j.Datacenters || []).join(', ')], ['Node pool', j.NodePool],
        ['Submitted', time(j.SubmitTime)]]} />
      <${Tabs} tabs=${['Overview', 'Versions', 'Deployments', 'Evaluations', 'Definition']} current=${tab}
        onSelect=${setTab} />
      ${tab === 'Overview' && html`<${JobOverview} job=${j} summary=${summary.data} base=${base} ns=${ns} />`}
      ${tab === 'Versions' && html`<${JobVersions} base=${base} ns=${ns} />`}
      ${tab === 'Deployments' && html`<${JobDeployments} base=${base} ns=${ns} />`}
      ${tab === 'Evaluations' && html`<${EvalTable} path=${withQuery(`${base}/evaluations`, ns)} />`}
      ${tab === 'Definition' && html`<pre class="code">${JSON.stringify(j, null, 2)}</pre>`}
    `}</${Loading}>
  </section>`;
}

function JobOverview({ job, summary, base, ns }) {
  const allocs = useBlocking(withQuery(`${base}/allocations`, ns));
  const groups = (summary && summary.Summary) || {};
  return html`<h2>Task groups</h2>
    <table class="table" aria-label="Task groups"><thead><tr><th>Group</th><th>Count</th><th>Allocations</th>
      <th>Scale</th></tr></thead><tbody>
      ${(job.TaskGroups || []).map((g) => html`<tr><td>${g.Name}</td><td>${g.Count}</td>
        <td class="bar-cell"><${AllocBar} counts=${groups[g.Name] || {}} legend=${true} /></td>
        <td>${job.Type !== 'system' && job.Type !== 'sysbatch' && html`<${ScaleControl} group=${g} base=${base} ns=${ns} />`}</td>
      </tr>`)}</tbody></table>
    <h2>Allocations</h2>
    <${Loading} state=${allocs}>${(list) => html`<${AllocTable} allocs=${list} />`}</${Loading}>`;
}

function ScaleControl({ group, base, ns }) {
  const [count, setCount] = useState(group.Count);
  return html`<form class="scale" onSubmit=${(e) => e.preventDefault()}>
    <label class="sr-only" for=${`count-${group.Name}`}>Count of ${group.Name}</label>
    <input id=${`count-${group.Name}`} type="number" min="0" value=${count} class="narrow"
      onInput=${(e) => setCount(e.target.value)} />
    <${Action} label="Scale" disabled=${Number(count) === group.Count}
      onRun=${() => post(withQuery(`${base}/scale`, ns), { Count: Number(count), Target: { Group: group.Name },
        Message: 'scaled from the web UI' })} /></form>`;
}

function JobVersions({ base, ns }) {
  const versions = useBlocking(withQuery(`${base}/versions`, { ...ns, diffs: 'true' }));
  return html`<${Loading} state=${versions}>${(v) => html`<ol class="versions">
    ${(v.Versions || []).map((job, i) => html`<li class="card"><h3>Version ${job.Version}
      ${job.Stable && html` <span class="tag">stable</span>`}</h3><p class="muted">Submitted ${time(job.SubmitTime)}</p>
      ${v.Diffs && v.Diffs[i] ? html`<${Diff} diff=${v.Diffs[i]} />` : html`<p class="muted">No earlier version.</p>`}
      ${i > 0 && html`<${Action} label="Revert to this version" confirm=${`Revert to version ${job.Version}?`}
        onRun=${() => post(withQuery(`${base}/revert`, ns), { JobID: job.ID, JobVersion: job.Version })} />`}
    </li>`)}</ol>`}</${Loading}>`;
}

// Nomad's diff objects: {Type, Fields:[{Type, Name, Old, New}], Objects:[...], TaskGroups:[...], Tasks:[...]}.
export function Diff({ diff }) {
  if (!diff || diff.Type === 'None') return html`<p class="muted">No changes.</p>`;
  const lines = [];
  const walk = (d, depth, label) => {
    if (!d || d.Type === 'None') return;
    if (label) lines.push({ depth, type: d.Type, text: label });
    for (const f of d.Fields || []) {
      if (f.Type === 'None') continue;
      const text = f.Type === 'Edited' ? `${f.Name}: "${f.Old}" => "${f.New}"`
        : f.Type === 'Added' ? `${f.Name}: "${f.New}"` : `${f.Name}: "${f.Old}"`;
      lines.push({ depth: depth + 1, type: f.Type, text });
    }
    for (const o of d.Objects || []) walk(o, depth + 1, o.Name);
    for (const g of d.TaskGroups || []) walk(g, depth + 1, `Task group "${g.Name}"`);
    for (const t of d.Tasks || []) walk(t, depth + 1, `Task "${t.Name}"`);
  };
  walk(diff, -1, diff.ID ? `Job "${diff.ID}"` : null);
  const mark = { Added: '+', Deleted: '-', Edited: '~', None: ' ' };
  return html`<pre class="diff" aria-label="Changes">${lines.map((l) => html`<span class=${`diff-${l.type.toLowerCase()}`}
    >${`${'  '.repeat(Math.max(l.depth, 0))}${mark[l.type] || ' '} ${l.text}`}</span>`)}</pre>`;
}

function JobDeployments({ base, ns }) {
  const deployments = useBlocking(withQuery(`${base}/deployments`, ns));
  return html`<${Loading} state=${deployments}>${(list) => list.length === 0
    ? html`<p class="muted">No deployments.</p>`
    : html`<ul class="cards">${list.map((d) => html`<li class="card"><h3>Deployment ${short(d.ID)}
        <${Status} value=${d.Status} /></h3><p>${d.StatusDescription}</p>
        <table class="table"><thead><tr><th>Group</th><th>Desired</th><th>Placed</th><th>Healthy</th>
          <th>Unhealthy</th><th>Canaries</th><th>Promoted</th></tr></thead><tbody>
          ${Object.entries(d.TaskGroups || {}).map(([name, g]) => html`<tr><td>${name}</td><td>${g.DesiredTotal}</td>
            <td>${g.PlacedAllocs}</td><td>${g.HealthyAllocs}</td><td>${g.UnhealthyAllocs}</td>
            <td>${(g.PlacedCanaries || []).length}/${g.DesiredCanaries}</td><td>${g.Promoted ? 'yes' : 'no'}</td>
          </tr>`)}</tbody></table>
        ${d.Status === 'running' && html`<div class="actions">
          <${Action} label="Promote" onRun=${() => post(`/v1/deployment/promote/${enc(d.ID)}`,
            { DeploymentID: d.ID, All: true })} />
          <${Action} label="Fail" kind="danger" confirm="Fail this deployment?"
            onRun=${() => post(`/v1/deployment/fail/${enc(d.ID)}`, { DeploymentID: d.ID })} /></div>`}
      </li>`)}</ul>`}</${Loading}>`;
}

export function EvalTable({ path }) {
  const evals = useBlocking(path);
  return html`<${Loading} state=${evals}>${(list) => list.length === 0 ? html`<p class="muted">No evaluations.</p>`
    : html`<table class="table" aria-label="Evaluations"><thead><tr><th>ID</th><th>Job</th><th>Triggered by</th>
      <th>Status</th><th class="hide-phone">Description</th><th class="hide-phone">Modified</th></tr></thead><tbody>
      ${list.map((e) => html`<tr><td><code>${short(e.ID)}</code></td>
        <td><${Link} to=${jobPath(e.JobID, e.Namespace)}>${e.JobID}</${Link}></td><td>${e.TriggeredBy}</td>
        <td><${Status} value=${e.Status} /></td><td class="hide-phone">${e.StatusDescription}</td>
        <td class="hide-phone">${ago(e.ModifyTime)}</td></tr>`)}</tbody></table>`}</${Loading}>`;
}

export function EvaluationsPage() {
  return html`<section><header class="page-head"><h1>Evaluations</h1></header>
    <${EvalTable} path="/v1/evaluations?namespace=*" /></section>`;
}

const EXAMPLE = `job "example" {
  type = "service"

  group "web" {
    count = 1

    task "hello" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "while true; do echo hello; sleep 5; done"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
`;

// Run: the editor holds HCL or JSON; Plan parses it (/v1/jobs/parse for HCL), asks /v1/job/:id/plan for the diff,
// and Run registers the planned job.
export function RunPage({ query }) {
  const editing = query.get('job');
  const namespace = query.get('namespace') || 'default';
  const [source, setSource] = useState(editing ? '' : EXAMPLE);
  const [plan, setPlan] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!editing) return;
    // Caravan keeps no job submission (Nomad's /submission): the job is edited as the JSON the server holds.
    get(withQuery(`/v1/job/${enc(editing)}`, { namespace })).then((j) =>
      setSource(JSON.stringify({ Job: j }, null, 2))).catch(setError);
  }, [editing, namespace]);
  const toJob = async () => {
    const text = source.trim();
    if (text.startsWith('{')) {
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new Error(`The JSON does not parse: ${e.message}`);
      }
      return parsed.Job || parsed;
    }
    return post('/v1/jobs/parse', { JobHCL: text, Canonicalize: true });
  };
  const doPlan = async (e) => {
    e && e.preventDefault();
    setBusy(true);
    setError(null);
    setPlan(null);
    try {
      const job = await toJob();
      const result = await post(withQuery(`/v1/job/${enc(job.ID)}/plan`, { namespace: job.Namespace }),
        { Job: job, Diff: true });
      setPlan({ job, result });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const job = plan.job;
      await post(withQuery('/v1/jobs', { namespace: job.Namespace }), { Job: job });
      navigate(jobPath(job.ID, job.Namespace));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return html`<section>
    <nav class="crumbs" aria-label="Breadcrumb"><${Link} to="/jobs">Jobs</${Link}>${' / '}<span>Run</span></nav>
    <header class="page-head"><h1>${editing ? `Edit ${editing}` : 'Run a job'}</h1></header>
    <form onSubmit=${doPlan}>
      <label class="field" for="jobspec">Job definition (HCL or JSON)</label>
      <textarea id="jobspec" class="editor" spellcheck="false" rows="22" value=${source}
        onInput=${(e) => { setSource(e.target.value); setPlan(null); }}></textarea>
      <div class="actions"><button type="submit" class="btn primary" disabled=${busy}>Plan</button>
        ${!editing && html`<button type="button" class="btn" onClick=${() => { setSource(EXAMPLE); setPlan(null); }}>
          Example</button>`}</div>
    </form>
    <${ErrorBox} error=${error} />
    ${plan && html`<section class="card plan" aria-label="Plan">
      <h2>Plan</h2>
      <${PlanSummary} result=${plan.result} />
      <${Diff} diff=${plan.result.Diff} />
      <div class="actions"><button type="button" class="btn primary" disabled=${busy} onClick=${run}>Run</button>
        <button type="button" class="btn" onClick=${() => setPlan(null)}>Cancel</button></div>
    </section>`}
  </section>`;
}

function PlanSummary({ result }) {
  const updates = (result.Annotations && result.Annotations.DesiredTGUpdates) || {};
  const failed = result.FailedTGAllocs || {};
  const kinds = ['Place', 'Stop', 'InPlaceUpdate', 'DestructiveUpdate', 'Canary', 'Migrate', 'Ignore'];
  const words = (u) => kinds.filter((k) => u[k])
    .map((k) => `${u[k]} ${k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}`).join(', ') || 'no change';
  return html`<ul class="plan-summary">${Object.entries(updates).map(([g, u]) => html`<li>Task group
    <strong>${g}</strong>${`: ${words(u)}`}</li>`)}
    ${Object.entries(failed).map(([g, f]) => html`<li class="warn" role="alert">Task group <strong>${g}</strong> cannot
      be placed: ${Object.entries(f.ConstraintFiltered || {}).map(([c, n]) => `${c} filtered ${n} nodes`).join('; ')
      || `${f.NodesEvaluated || 0} nodes evaluated, ${f.NodesExhausted || 0} exhausted`}</li>`)}</ul>`;
}

export function DispatchPage({ param }) {
  const { id, namespace } = parseJobParam(param);
  const [payload, setPayload] = useState('');
  const [meta, setMeta] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const Meta = {};
      for (const line of meta.split('\n').map((l) => l.trim()).filter(Boolean)) {
        const eq = line.indexOf('=');
        if (eq < 1) throw new Error(`Meta line "${line}" is not key=value`);
        Meta[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
      }
      const bytesOf = new TextEncoder().encode(payload);
      const Payload = payload ? btoa(String.fromCharCode(...bytesOf)) : undefined;
      const r = await post(withQuery(`/v1/job/${enc(id)}/dispatch`, { namespace }), { Payload, Meta });
      navigate(jobPath(r.DispatchedJobID, namespace));
    } catch (err) {
      setError(err);
    }
  };
  return html`<section><nav class="crumbs" aria-label="Breadcrumb"><${Link} to="/jobs">Jobs</${Link}>${' / '}<${Link}
    to=${jobPath(id, namespace)}>${id}</${Link}>${' / '}<span>Dispatch</span></nav>
    <h1>Dispatch ${id}</h1><form onSubmit=${submit}>
      <label class="field" for="meta">Meta (one key=value a line)</label>
      <textarea id="meta" rows="4" value=${meta} onInput=${(e) => setMeta(e.target.value)}></textarea>
      <label class="field" for="payload">Payload</label>
      <textarea id="payload" rows="6" value=${payload} onInput=${(e) => setPayload(e.target.value)}></textarea>
      <div class="actions"><button class="btn primary" type="submit">Dispatch</button></div></form>
    <${ErrorBox} error=${error} /></section>`;
}
