// The workload-map dashboard: a table of workloads and a page per workload, kept current by the
// server's event stream. No framework and no CDN: it must work offline from the Python package.
"use strict";

const STATUS_COLOURS = {
  Running: "#1f8f4e", Completed: "#3465a4", Failed: "#c0392b", Degraded: "#d35400", Initializing: "#b7950b",
  Suspended: "#6c757d", Suspending: "#8e7cc3", Resuming: "#8e7cc3", Undefined: "#95a5a6",
};
const POD_COLOURS = { ready: "#1f8f4e", running: "#6fbf8f", pending: "#b7950b", failed: "#c0392b", succeeded: "#3465a4", other: "#95a5a6" };
const state = { sort: "namespace", desc: false, cluster: "", namespace: "", status: "", search: "", version: 0, clusters: [] };
const fleet = () => state.clusters.length > 1;  // several clusters: a Cluster column, filter and page
const token = new URLSearchParams(location.search).get("token");

function api(path) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  return fetch(path, { headers }).then((r) => {
    if (!r.ok) throw new Error(path + ": " + r.status);
    return r.json();
  });
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function chip(status) { return el("span", { class: "chip " + status, "data-status": status }, status); }

function age(timestamp) {
  if (!timestamp) return "<unknown>";
  const seconds = Math.max(0, (Date.now() - Date.parse(timestamp)) / 1000);
  if (seconds < 120) return Math.floor(seconds) + "s";
  if (seconds < 7200) return Math.floor(seconds / 60) + "m";
  if (seconds < 172800) return Math.floor(seconds / 3600) + "h";
  return Math.floor(seconds / 86400) + "d";
}

// Counts the server could not know (part of the cluster unread) are null: shown as "?", never as 0.
function count(value) { return value === null || value === undefined ? "?" : String(value); }

// What the model cannot see right now, above every page: a frozen API server, kinds it may not read.
function banner(status) {
  const lines = [];
  const frozen = status.apiserver && !status.apiserver.answering;
  if (frozen) lines.push(status.reason);
  for (const line of status.stale || []) lines.push(line);  // watches failing: answers that may be old
  for (const warning of (status.coverage || {}).warnings || []) lines.push(warning);
  if (!lines.length) return null;
  return el("div", { class: "banner", id: "coverage", role: "status" },
    el("strong", {}, frozen || (status.stale || []).length ? "Not current" : "Partial view"),
    el("ul", {}, lines.map((line) => el("li", {}, line))));
}

function number(value) { return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, ""); }

const CLUSTER_COLUMN = ["cluster", "Cluster", (w) => w.cluster || ""];
const COLUMNS = [
  ["namespace", "Namespace", (w) => w.namespace],
  ["name", "Name", (w) => w.name],
  ["type", "Type", (w) => w.type],
  ["status", "Status", (w) => w.status],
  ["components", "Components", (w) => w.components.map((c) => c.name + "(" + c.pods + ")").join(" ") || "<none>"],
  ["pods", "Pods", (w) => (w.pods.ready ?? -1) / Math.max(1, w.pods.desired)],
  ["gpus", "GPUs", (w) => w.gpus],
  ["age", "Age", (w) => -Date.parse(w.creationTimestamp || 0)],
];

// The rows the filters and the search keep: the table and the totals above it show the same workloads.
function filtered(items) {
  const search = state.search.toLowerCase();
  return items.filter((w) => (!state.cluster || w.cluster === state.cluster)
    && (!state.namespace || w.namespace === state.namespace)
    && (!state.status || w.status === state.status)
    && (!search || (w.namespace + " " + w.name + " " + w.type + " " + w.definition).toLowerCase().includes(search)));
}

function totals(items, all) {
  const byStatus = {}, byNamespace = {};
  let gpus = 0, pods = 0, ready = 0, unknown = 0;
  for (const w of items) {
    byStatus[w.status] = (byStatus[w.status] || 0) + w.gpus;
    byNamespace[w.namespace] = (byNamespace[w.namespace] || 0) + w.gpus;
    gpus += w.gpus; pods += w.pods.desired;
    if (w.pods.ready === null) unknown += 1; else ready += w.pods.ready;
  }
  const cards = el("div", { class: "cards", id: "totals" },
    el("div", { class: "card" }, el("div", { class: "n", id: "total-workloads" }, items.length),
      el("div", { class: "l", id: "total-workloads-label" }, items.length === all ? "workloads" : `workloads (filtered, of ${all})`)),
    el("div", { class: "card" }, el("div", { class: "n", id: "total-gpus" }, number(gpus)), el("div", { class: "l" }, "GPUs requested")),
    el("div", { class: "card" }, el("div", { class: "n" }, (unknown ? (unknown === items.length ? "?" : ready + "+?") : ready) + "/" + pods),
      el("div", { class: "l" }, "pods ready / desired" + (unknown ? ` (${unknown} workloads unknown)` : ""))));
  const bars = (title, values, colour) => {
    const max = Math.max(1, ...Object.values(values));
    return el("div", { class: "panel" }, el("h2", {}, title), el("div", { class: "bars" },
      Object.entries(values).sort((a, b) => b[1] - a[1]).map(([key, value]) => [
        el("span", {}, key),
        el("div", { class: "bar", style: `width:${(100 * value) / max}%;background:${colour(key)}`, role: "img", "aria-label": `${key}: ${number(value)} GPUs` }),
        el("span", { class: "num" }, number(value)),
      ])));
  };
  return [cards, el("div", { class: "grid2", id: "totals-bars" },
    bars("GPUs by status", byStatus, (s) => STATUS_COLOURS[s] || "#95a5a6"),
    bars("GPUs by namespace", byNamespace, () => "#3465a4"))];
}

function href(w) { return "#/w/" + w.path + (fleet() ? "?cluster=" + encodeURIComponent(w.cluster) : ""); }

function table(items) {
  const columns = fleet() ? [CLUSTER_COLUMN, ...COLUMNS] : COLUMNS;
  const column = columns.find((c) => c[0] === state.sort) || columns[0];
  const shown = filtered(items);
  shown.sort((a, b) => {
    const x = column[2](a), y = column[2](b);
    const order = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
    return state.desc ? -order : order;
  });
  const head = el("tr", {}, columns.map(([key, label]) => el("th", { scope: "col", "aria-sort": state.sort === key ? (state.desc ? "descending" : "ascending") : "none" },
    el("button", { onclick: () => { state.desc = state.sort === key ? !state.desc : false; state.sort = key; render(); } },
      label + (state.sort === key ? (state.desc ? " ▾" : " ▴") : "")))));
  const rows = shown.map((w) => el("tr", {
    tabindex: "0", "data-path": w.path, "data-cluster": w.cluster || "",
    onclick: () => { location.hash = href(w); },
    onkeydown: (e) => { if (e.key === "Enter") location.hash = href(w); },
  },
    fleet() ? el("td", { "data-col": "cluster" }, w.cluster) : null,
    el("td", {}, w.namespace), el("td", {}, el("a", { href: href(w) }, w.name)), el("td", {}, w.type),
    el("td", {}, chip(w.status), w.incomplete && w.incomplete.length ? el("span", { class: "muted", title: w.incomplete.join("; ") }, " (incomplete)") : null),
    el("td", {}, COLUMNS[4][2](w)),
    el("td", { class: "num", "data-col": "pods" }, count(w.pods.ready) + "/" + w.pods.desired),
    el("td", { class: "num" }, number(w.gpus)), el("td", {}, age(w.creationTimestamp))));
  return el("table", { id: "workloads", "aria-label": "workloads" }, el("thead", {}, head), el("tbody", {}, rows));
}

function filters(items) {
  const namespaces = [...new Set(items.map((w) => w.namespace))].sort();
  const statuses = [...new Set(items.map((w) => w.status))].sort();
  const select = (id, label, values, key) => el("label", { for: id }, label,
    el("select", { id, onchange: (e) => { state[key] = e.target.value; render(); } },
      el("option", { value: "" }, "all"), values.map((v) => { const o = el("option", { value: v }, v); if (state[key] === v) o.selected = true; return o; })));
  const search = el("input", { id: "search", type: "search", placeholder: "name, type, definition", value: state.search,
    oninput: (e) => { state.search = e.target.value; renderTable(); } });
  return el("div", { class: "filters" },
    fleet() ? select("f-cluster", "Cluster", state.clusters, "cluster") : null,
    select("f-namespace", "Namespace", namespaces, "namespace"),
    select("f-status", "Status", statuses, "status"), el("label", { for: "search" }, "Search", search));
}

let lastItems = [];
function renderTable() {
  const old = document.getElementById("workloads");
  if (old) old.replaceWith(table(lastItems));
  const [cards, bars] = totals(filtered(lastItems), lastItems.length);
  const oldCards = document.getElementById("totals"), oldBars = document.getElementById("totals-bars");
  if (oldCards) oldCards.replaceWith(cards);
  if (oldBars) oldBars.replaceWith(bars);
}

async function listPage() {
  const [list, status] = await Promise.all([api("/api/v1/workloads"), api("/api/v1/status")]);
  state.clusters = list.clusters || [];
  navigation();
  lastItems = list.items;
  const app = document.getElementById("app");
  const focused = document.activeElement && document.activeElement.id;
  app.replaceChildren(...[banner(status), el("h1", {}, "Workloads"), ...totals(filtered(list.items), list.items.length), filters(list.items), table(list.items)].filter(Boolean));
  if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
}

function podColour(pod) {
  if (pod.ready) return POD_COLOURS.ready;
  return POD_COLOURS[(pod.phase || "").toLowerCase()] || POD_COLOURS.other;
}

// The component -> instance -> pod tree as an SVG graph: one column per level, pods as coloured boxes.
function graph(tree) {
  const svgNS = "http://www.w3.org/2000/svg";
  const node = (tag, attrs, text) => {
    const n = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  };
  const rows = [];
  for (const component of tree.components) {
    const instances = component.instances.length ? component.instances : [{ id: null, pods: [] }];
    instances.forEach((instance, index) => {
      const pods = tree.pods.filter((p) => p.component === component.name && (instance.id === null || instance.id === undefined || p.instance === instance.id));
      rows.push({ component: component.name, instance: instance.id ?? (instances.length > 1 ? String(index) : ""), desired: instance.desiredPods || 0, pods });
    });
  }
  if (tree.unattributed.length) rows.push({ component: "unattributed", instance: "", desired: 0, pods: tree.unattributed });
  const perLine = 16, box = 22, gap = 4, left = 360;
  let y = 10;
  const svg = node("svg", { id: "tree-graph", role: "img", "aria-label": "component, instance and pod graph" });
  const root = node("g", {});
  svg.append(root);
  root.append(node("text", { x: 8, y: 24, "font-weight": "600" }, `${tree.workload.kind}/${tree.workload.name}`));
  y = 40;
  for (const row of rows) {
    const lines = Math.max(1, Math.ceil(row.pods.length / perLine));
    const height = lines * (box + gap) + 14;
    root.append(node("path", { class: "edge", d: `M 20 30 V ${y + 12} H 40` }));
    root.append(node("text", { x: 44, y: y + 16 }, row.component));
    if (row.instance) root.append(node("text", { x: 190, y: y + 16, fill: "#5b6475" }, "instance " + row.instance));
    root.append(node("text", { x: 290, y: y + 16, fill: "#5b6475" }, `${row.pods.length}/${row.desired} pods`));
    row.pods.forEach((pod, i) => {
      const px = left + (i % perLine) * (box + gap), py = y + Math.floor(i / perLine) * (box + gap);
      const g = node("g", { class: "pod", "data-pod": pod.name, tabindex: "0" });
      g.append(node("rect", { x: px, y: py, width: box, height: box, rx: 4, fill: podColour(pod) }));
      const reason = pod.pendingReason ? ` — pending: ${pod.pendingReason}` : "";
      g.append(node("title", {}, `${pod.name} (${pod.phase || "?"}${pod.ready ? ", ready" : ""}) on ${pod.node || "no node"}${reason}`));
      root.append(g);
    });
    y += height;
  }
  svg.setAttribute("width", String(left + perLine * (box + gap) + 20));
  svg.setAttribute("height", String(y + 10));
  return svg;
}

function explanation(status) {
  const check = (c) => el("li", { class: c.ok ? "ok" : "no" },
    `${c.ok ? "✓" : "✗"} ${c.kind}: expected ${JSON.stringify(c.expected)}, actual ${JSON.stringify(c.actual)}${c.detail ? " (" + c.detail + ")" : ""}`);
  const items = (status.explanations || []).map((e) => el("li", { class: e.matched ? "ok" : "no" },
    el("strong", {}, e.status), e.matched ? " — matched" : " — not matched",
    el("ul", {}, (e.matchers || []).map((m) => el("li", {}, `rule ${m.index}${m.matched ? " matched" : ""}${m.error ? " — error: " + m.error : ""}`,
      el("ul", {}, (m.checks || []).map(check)))))));
  return el("div", { class: "panel explain", id: "explanation" }, el("h2", {}, "Why ", chip(status.primary)),
    el("p", {}, "Matched: ", (status.matched || []).join(", ") || "nothing", status.phase ? " · phase " + status.phase : ""),
    el("ul", {}, items));
}

function gangPanel(gang) {
  if (!gang || !gang.groups || !gang.groups.length) return el("div", { class: "panel", id: "gang" }, el("h2", {}, "Gang groups"), el("p", { class: "muted" }, "none"));
  return el("div", { class: "panel", id: "gang" }, el("h2", {}, "Gang groups"),
    el("table", {}, el("thead", {}, el("tr", {}, ["Group", "Min members", "Present", "Missing"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, gang.groups.map((g) => el("tr", {}, el("td", {}, g.name || ""), el("td", { class: "num" }, g.minMember),
        el("td", { class: "num" }, (g.members || {}).present ?? ""), el("td", { class: "num" }, (g.members || {}).missing ?? ""))))));
}

// The Fleet page: each cluster's workloads by status and GPUs (requested, in use, free when known).
async function fleetPage() {
  const [summary, status] = await Promise.all([api("/api/v1/fleet"), api("/api/v1/status")]);
  state.clusters = summary.clusters.map((c) => c.cluster);
  navigation();
  const gpu = (value) => (value === null || value === undefined ? "?" : number(value));
  const max = Math.max(1, ...summary.clusters.map((c) => c.gpusRequested || 0));
  const rows = summary.clusters.map((c) => el("tr", { "data-cluster": c.cluster },
    el("th", { scope: "row" }, el("a", { href: "#/", onclick: () => { state.cluster = c.cluster; } }, c.cluster)),
    el("td", {}, c.served ? (c.ready ? "ready" : "not ready") : c.retrying ? "not read, retrying" : "not read", c.reason && c.reason !== "ready" ? el("div", { class: "muted" }, c.reason.replace(/^not read: /, "").replace(/ \(retrying\)$/, "")) : null),
    el("td", { class: "num", "data-col": "workloads" }, c.workloads ?? "?"),
    el("td", { "data-col": "statuses" }, Object.entries(c.byStatus).map(([s, n]) => el("span", { class: "chip " + s, "data-status": s }, s + " " + n))),
    el("td", { class: "num", "data-col": "gpus" }, gpu(c.gpusRequested)),
    el("td", {}, el("div", { class: "bar", style: `width:${(100 * (c.gpusRequested || 0)) / max}%;background:#3465a4`, role: "img", "aria-label": `${c.cluster}: ${gpu(c.gpusRequested)} GPUs requested` })),
    el("td", { class: "num", "data-col": "in-use" }, gpu(c.gpusInUse)),
    el("td", { class: "num", "data-col": "free" }, gpu(c.gpusFree))));
  const head = el("tr", {}, ["Cluster", "State", "Workloads", "By status", "GPUs requested", "", "GPUs in use", "GPUs free"].map((h) => el("th", { scope: "col" }, h)));
  document.getElementById("app").replaceChildren(...[banner(status), el("h1", {}, "Fleet"),
    el("table", { id: "fleet", "aria-label": "clusters" }, el("thead", {}, head), el("tbody", {}, rows))].filter(Boolean));
}

// The Queues page: each cluster's scheduler queues as a tree (quota, limit, GPUs used with a bar against the
// quota, borrowed, workloads admitted and waiting, GPUs waiting), then the workloads that wait and why, in
// the scheduler's words (docs/queues.md). The figures are /api/v1/queues, as `wmap queues` prints them.
async function queuesPage() {
  const [doc, status] = await Promise.all([api("/api/v1/queues"), api("/api/v1/status")]);
  navigation();
  const gpu = (value) => (value === null || value === undefined ? "–" : number(value));
  const sections = [];
  for (const c of doc.clusters) {
    const title = doc.clusters.length > 1 || c.cluster ? el("h2", {}, "Cluster " + c.cluster) : null;
    if (c.queues === null) {
      sections.push(title, el("p", { class: "muted" }, c.error ? "Queues not read: " + c.error : "Queues not read yet."));
      continue;
    }
    const byKey = Object.fromEntries(c.queues.map((q) => [q.key, q]));
    const rows = [];
    const visit = (q, depth) => {
      const g = q.gpus, scale = Math.max(1, g.limit ?? 0, g.quota ?? 0, g.used ?? 0);
      const over = g.borrowed > 0;
      rows.push(el("tr", { "data-queue": q.key },
        el("td", {}, q.scheduler),
        el("th", { scope: "row", style: `padding-left:${0.6 + depth * 1.4}rem` }, (depth ? "└ " : "") + (q.namespace ? q.namespace + "/" : "") + q.name,
          q.implicit ? el("span", { class: "muted" }, " (no Cohort object)") : null, q.state ? el("span", { class: "muted" }, " [" + q.state + "]") : null),
        el("td", {}, q.kind),
        el("td", { class: "num", "data-col": "quota" }, gpu(g.quota)), el("td", { class: "num", "data-col": "limit" }, gpu(g.limit)),
        el("td", { class: "num", "data-col": "used" }, gpu(g.used)),
        el("td", { class: "usage" }, el("div", { class: "track", role: "img", "aria-label": `${q.name}: ${gpu(g.used)} of ${gpu(g.quota)} GPUs of quota used` },
          el("div", { class: "bar" + (over ? " over" : ""), style: `width:${(100 * (g.used || 0)) / scale}%` }),
          g.quota !== null ? el("div", { class: "quota-mark", style: `left:${(100 * g.quota) / scale}%` }) : null)),
        el("td", { class: "num" + (over ? " over" : ""), "data-col": "borrowed" }, gpu(g.borrowed)),
        el("td", { class: "num", "data-col": "admitted" }, q.workloads.admitted), el("td", { class: "num", "data-col": "waiting" }, q.workloads.waiting),
        el("td", { class: "num", "data-col": "gpus-waiting" }, gpu(g.waiting))));
      for (const child of q.children) if (byKey[child]) visit(byKey[child], depth + 1);
    };
    for (const q of c.queues) if (!q.parent || !byKey[q.parent]) visit(q, 0);
    const head = el("tr", {}, ["Scheduler", "Queue", "Kind", "GPU quota", "GPU limit", "GPUs used", "", "Borrowed", "Admitted", "Waiting", "GPUs waiting"].map((h) => el("th", { scope: "col" }, h)));
    const waiting = c.workloads.filter((w) => ["Pending", "QuotaReserved", "Unknown"].includes(w.state));
    sections.push(title,
      c.queues.length ? el("table", { class: "queues", "aria-label": "queues" + (c.cluster ? " of " + c.cluster : "") }, el("thead", {}, head), el("tbody", {}, rows))
        : el("p", { class: "muted" }, "No Kueue, KAI or Volcano queue in this cluster."),
      el("h2", {}, "Waiting workloads"),
      waiting.length ? el("table", { class: "waiting", "aria-label": "waiting workloads" },
        el("thead", {}, el("tr", {}, ["Namespace", "Workload", "Queue", "State", "GPUs", "Why (the scheduler's words)"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, waiting.map((w) => el("tr", { "data-workload": w.namespace + "/" + w.name },
          el("td", {}, w.namespace), el("td", {}, w.kind + "/" + w.name), el("td", {}, w.queue), el("td", {}, w.state),
          el("td", { class: "num" }, gpu(w.gpus)), el("td", { class: "why" }, (w.reason ? w.reason + (w.message ? ": " : "") : "") + w.message)))))
        : el("p", { class: "muted" }, "Nothing waits."),
      c.age !== null ? el("p", { class: "muted" }, `Read ${Math.round(c.age)} s ago` + (c.error ? "; the last read failed: " + c.error : "")) : null);
  }
  document.getElementById("app").replaceChildren(...[banner(status), el("h1", {}, "Queues"), ...sections].filter(Boolean));
}

function navigation() {
  const header = document.querySelector("header");
  if (!document.getElementById("nav-queues")) header.insertBefore(el("a", { id: "nav-queues", href: "#/queues", class: "nav" }, "Queues"), document.getElementById("live"));
  let link = document.getElementById("nav-fleet");
  if (!fleet()) { if (link) link.remove(); return; }
  if (!link) header.insertBefore(el("a", { id: "nav-fleet", href: "#/fleet", class: "nav" }, "Fleet"), document.getElementById("live"));
}

async function workloadPage(target) {
  const [path, query] = target.split("?");
  const cluster = new URLSearchParams(query || "").get("cluster");
  const url = "/api/v1/workloads/" + path.split("/").map(encodeURIComponent).join("/") + (cluster ? "?cluster=" + encodeURIComponent(cluster) : "");
  const [doc, status] = await Promise.all([api(url), api("/api/v1/status")]);
  const tree = doc.tree, row = doc.row;
  const pending = tree.pods.filter((p) => p.pendingReason);
  document.getElementById("app").replaceChildren(...[
    banner(status),
    el("p", {}, el("a", { href: "#/" }, "← all workloads")),
    el("h1", {}, `${row.type} ${cluster ? cluster + ": " : ""}${row.namespace}/${row.name} `, chip(row.status), row.incomplete.length ? " (incomplete)" : ""),
    row.incomplete.length ? el("p", { class: "muted", id: "incomplete" }, "Counts unknown: " + row.incomplete.join("; ")) : null,
    el("div", { class: "cards" },
      el("div", { class: "card" }, el("div", { class: "n", id: "pods-ready" }, count(row.pods.ready) + "/" + row.pods.desired), el("div", { class: "l" }, "pods ready / desired")),
      el("div", { class: "card" }, el("div", { class: "n" }, number(row.gpus)), el("div", { class: "l" }, "GPUs requested")),
      el("div", { class: "card" }, el("div", { class: "n" }, row.nodes.length), el("div", { class: "l" }, "nodes")),
      el("div", { class: "card" }, el("div", { class: "n" }, row.definition), el("div", { class: "l" }, "definition"))),
    el("h2", {}, "Tree"), el("div", { class: "panel" }, graph(tree)),
    pending.length ? el("div", { class: "panel", id: "pending" }, el("h2", {}, "Pending"), el("ul", {}, pending.map((p) => el("li", {}, `${p.name}: ${p.pendingReason}${p.pendingMessage ? " — " + p.pendingMessage : ""}`)))) : null,
    el("div", { class: "grid2" }, explanation(tree.status), gangPanel(doc.gang))].filter(Boolean));
}

async function render() {
  const hash = location.hash || "#/";
  try {
    if (hash.startsWith("#/w/")) await workloadPage(decodeURIComponent(hash.slice(4)));
    else if (hash === "#/fleet") await fleetPage();
    else if (hash === "#/queues") await queuesPage();
    else await listPage();
    document.body.dataset.version = String(state.version);
  } catch (error) {
    document.getElementById("app").replaceChildren(el("p", { role: "alert" }, "Cannot load: " + error.message));
  }
}

function connect() {
  const live = document.getElementById("live");
  const source = new EventSource("/api/v1/events" + (token ? "?token=" + encodeURIComponent(token) : ""));
  source.addEventListener("change", (event) => {
    state.version = JSON.parse(event.data).version;
    live.textContent = "live · v" + state.version;
    render();
  });
  source.onerror = () => { live.textContent = "reconnecting…"; };
}

window.addEventListener("hashchange", render);
render();
connect();
