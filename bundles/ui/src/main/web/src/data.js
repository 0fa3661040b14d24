// Variables (list, read, edit, delete) and services (names, then each one's registrations).
import { useState } from 'preact/hooks';
import { del, put, get, useBlocking, withQuery } from './api.js';
import { html, Link, navigate, short, enc, ago, Loading, ErrorBox, Action } from './ui.js';
import { NamespaceSelect } from './jobs.js';

const varPath = (path, namespace) => `/variables/var/${path.split('/').map(enc).join('/')}${
  namespace && namespace !== 'default' ? `@${enc(namespace)}` : ''}`;

export function VariablesPage({ query }) {
  const namespace = query.get('namespace') || '*';
  const [prefix, setPrefix] = useState('');
  const vars = useBlocking(withQuery('/v1/vars', { namespace, prefix }));
  return html`<section><header class="page-head"><h1>Variables</h1>
    <${Link} class="btn primary" to=${`/variables/new${namespace !== '*' ? `?namespace=${enc(namespace)}` : ''}`}>
      Create Variable</${Link}></header>
    <div class="filters" role="search"><label class="field inline">Path prefix <input type="search" value=${prefix}
      onInput=${(e) => setPrefix(e.target.value)} /></label>
      <${NamespaceSelect} value=${namespace} onChange=${(ns) => navigate(`/variables${ns === '*' ? ''
        : `?namespace=${enc(ns)}`}`, { replace: true })} /></div>
    <${Loading} state=${vars}>${(list) => list.length === 0 ? html`<p class="muted">No variables.</p>`
      : html`<table class="table" aria-label="Variables"><thead><tr><th>Path</th><th>Namespace</th>
        <th class="hide-phone">Modified</th></tr></thead><tbody>${list.map((v) => html`<tr>
          <td><${Link} to=${varPath(v.Path, v.Namespace)}>${v.Path}</${Link}></td><td>${v.Namespace}</td>
          <td class="hide-phone">${ago(v.ModifyTime)}</td></tr>`)}</tbody></table>`}</${Loading}></section>`;
}

export function VariablePage({ param, isNew, query }) {
  let path = '';
  let namespace = query.get('namespace') || 'default';
  if (!isNew) {
    const at = param.lastIndexOf('@');
    path = decodeURIComponent(at > 0 ? param.slice(0, at) : param);
    if (at > 0) namespace = decodeURIComponent(param.slice(at + 1));
  }
  const variable = useBlocking(isNew ? null : withQuery(`/v1/var/${path}`, { namespace }), { live: false });
  if (!isNew && variable.data === undefined) {
    return html`<section><${Loading} state=${variable}>${() => null}</${Loading}></section>`;
  }
  return html`<section><nav class="crumbs" aria-label="Breadcrumb"><${Link} to="/variables">Variables</${Link}>${' / '}<span
    >${isNew ? 'New' : path}</span></nav>
    <${VariableEditor} key=${path} initial=${variable.data} isNew=${isNew} namespace=${namespace} path=${path} /></section>`;
}

function VariableEditor({ initial, isNew, namespace, path }) {
  const [name, setName] = useState(path);
  const [items, setItems] = useState(Object.entries((initial && initial.Items) || { '': '' }));
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(null);
  const setItem = (i, k, v) => setItems(items.map((it, j) => (j === i ? [k, v] : it)));
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const Items = Object.fromEntries(items.filter(([k]) => k.trim()).map(([k, v]) => [k.trim(), v]));
      if (!name.trim()) throw new Error('A variable needs a path');
      if (Object.keys(Items).length === 0) throw new Error('A variable needs at least one item');
      const cas = initial ? initial.ModifyIndex : 0;
      const result = await put(withQuery(`/v1/var/${name.trim()}`, { namespace, cas }),
        { Namespace: namespace, Path: name.trim(), Items });
      setSaved(result);
      if (isNew) navigate(varPath(name.trim(), namespace));
    } catch (err) {
      setError(err);
    }
  };
  return html`<h1>${isNew ? 'Create variable' : path}</h1>
    ${!isNew && html`<p class="muted">Namespace ${namespace} · modify index ${(saved || initial).ModifyIndex}</p>`}
    <form onSubmit=${save} class="var-form">
      ${isNew && html`<label class="field" for="var-path">Path</label>
        <input id="var-path" value=${name} onInput=${(e) => setName(e.target.value)} placeholder="nomad/jobs/example" />`}
      <fieldset><legend>Items</legend>
        ${items.map(([k, v], i) => html`<div class="item-row">
          <label class="sr-only" for=${`k${i}`}>Key ${i + 1}</label>
          <input id=${`k${i}`} placeholder="key" value=${k} onInput=${(e) => setItem(i, e.target.value, v)} />
          <label class="sr-only" for=${`v${i}`}>Value ${i + 1}</label>
          <input id=${`v${i}`} placeholder="value" value=${v} onInput=${(e) => setItem(i, k, e.target.value)} />
          <button type="button" class="btn" aria-label=${`Remove item ${i + 1}`}
            onClick=${() => setItems(items.filter((_, j) => j !== i))}>Remove</button></div>`)}
        <button type="button" class="btn" onClick=${() => setItems([...items, ['', '']])}>Add item</button>
      </fieldset>
      <div class="actions"><button type="submit" class="btn primary">Save</button>
        ${!isNew && html`<${Action} label="Delete" kind="danger" confirm=${`Delete ${path}?`} onRun=${async () => {
          await del(withQuery(`/v1/var/${path}`, { namespace }));
          navigate('/variables');
        }} />`}</div>
      ${saved && html`<p role="status">Saved.</p>`}
    </form><${ErrorBox} error=${error} />`;
}

export function ServicesPage() {
  const services = useBlocking('/v1/services?namespace=*');
  const [open, setOpen] = useState(null);
  return html`<section><header class="page-head"><h1>Services</h1></header>
    <${Loading} state=${services}>${(list) => {
      const rows = list.flatMap((ns) => (ns.Services || []).map((s) => ({ ...s, Namespace: ns.Namespace })));
      if (rows.length === 0) return html`<p class="muted">No services are registered.</p>`;
      return html`<table class="table" aria-label="Services"><thead><tr><th>Name</th><th>Namespace</th><th>Tags</th>
        </tr></thead><tbody>${rows.map((s) => html`<tr><td><button type="button" class="linkish"
          aria-expanded=${open === s} onClick=${() => setOpen(open === s ? null : s)}>${s.ServiceName}</button></td>
          <td>${s.Namespace}</td><td>${(s.Tags || []).join(', ')}</td></tr>`)}</tbody></table>
        ${open && html`<${ServiceInstances} service=${open} />`}`;
    }}</${Loading}></section>`;
}

function ServiceInstances({ service }) {
  const instances = useBlocking(withQuery(`/v1/service/${enc(service.ServiceName)}`, { namespace: service.Namespace }));
  return html`<section class="card"><h2>${service.ServiceName}</h2><${Loading} state=${instances}>${(list) => html`
    <table class="table" aria-label=${`Instances of ${service.ServiceName}`}><thead><tr><th>Address</th><th>Job</th>
      <th>Allocation</th><th class="hide-phone">Client</th></tr></thead><tbody>${list.map((r) => html`<tr>
        <td>${r.Address}:${r.Port}</td><td>${r.JobID}</td>
        <td><${Link} to=${`/allocations/${r.AllocID}`}><code>${short(r.AllocID)}</code></${Link}></td>
        <td class="hide-phone"><${Link} to=${`/clients/${r.NodeID}`}>${short(r.NodeID)}</${Link}></td></tr>`)}
    </tbody></table>`}</${Loading}></section>`;
}

export { get };
