// The workload-map dashboard: a cluster's capacity and what needs attention, a table of workloads and a page
// per workload, kept current by the server's event stream. No framework and no CDN: it must work offline
// from the Python package. Every figure is the server's (workload_map.tree.figures): this page sums the
// rows it shows and counts nothing on its own.
"use strict";

const STATUS_COLOURS = {
  Running: "#1f8f4e", Completed: "#3465a4", Failed: "#c0392b", Degraded: "#d35400", Initializing: "#b7950b",
  Suspended: "#6c757d", Suspending: "#8e7cc3", Resuming: "#8e7cc3", Undefined: "#95a5a6",
};
const POD_COLOURS = { ready: "#1f8f4e", running: "#6fbf8f", pending: "#b7950b", failed: "#c0392b", succeeded: "#3465a4", problem: "#c0392b", other: "#95a5a6" };
const state = { sort: "name", desc: false, cluster: "", namespace: "", status: "", search: "", version: 0, clusters: [] };
const fleet = () => state.clusters.length > 1;  // several clusters: a Cluster column, filter and page
const token = new URLSearchParams(location.search).get("token");

class NotFound extends Error {}

function api(path) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  return fetch(path, { headers }).then((r) => {
    if (r.status === 404) throw new NotFound(path);
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
    if (child !== null && child !== undefined && child !== false) node.append(child instanceof Node ? child : String(child));
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
function number(value) {
  if (value === null || value === undefined) return "?";
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, "");
}
function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

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

function card(id, value, label, extra) {
  return el("div", { class: "card" + (extra ? " " + extra : "") }, el("div", { class: "n", id }, value), el("div", { class: "l", id: id + "-label" }, label));
}

function problemsText(problems) {
  return Object.entries(problems || {}).map(([reason, n]) => (n > 1 ? n + " " : "") + reason).join(", ");
}

const CLUSTER_COLUMN = ["cluster", "Cluster", (w) => w.cluster || ""];
// [key, header, sort value, class]: the "wide" columns give way on narrow windows (app.css).
const COLUMNS = [
  ["namespace", "Namespace", (w) => w.namespace],
  ["name", "Name", (w) => w.name],
  ["type", "Type", (w) => w.type],
  ["status", "Status", (w) => w.status],
  ["components", "Components", (w) => w.components.map((c) => c.name + "(" + c.pods + ")").join(" ") || "<none>", "wide"],
  ["pods", "Pods ready/desired", (w) => (w.pods.ready ?? -1) / Math.max(1, w.pods.desired)],
  ["gpus", "GPUs desired", (w) => w.gpusDesired],
  ["inuse", "GPUs in use", (w) => w.gpusInUse ?? -1],
  ["problems", "Problems", (w) => problemsText(w.problems)],
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
  let requested = 0, inUse = 0, desired = 0, ready = 0, unknown = 0;
  for (const w of items) {
    requested += w.gpusRequested; desired += w.pods.desired;
    if (w.pods.ready === null || w.gpusInUse === null) unknown += 1;
    else { ready += w.pods.ready; inUse += w.gpusInUse; }
  }
  const partial = (value) => (unknown ? (unknown === items.length ? "?" : number(value) + "+?") : number(value));
  return el("div", { class: "cards", id: "totals" },
    card("total-workloads", items.length, items.length === all ? "workloads" : `workloads (filtered, of ${all})`),
    card("total-requested", number(requested), "GPUs requested by running workloads"),
    card("total-inuse", partial(inUse), "GPUs in use by their pods"),
    card("total-pods", partial(ready) + "/" + desired, "pods ready / desired" + (unknown ? ` (${unknown} workloads unknown)` : "")));
}

// The cluster's GPUs (placement/figures.py): total, in use by pods bound to nodes, free for any pod, free on
// tainted nodes, and the same per GPU pool; summed over the clusters the filter keeps.
function capacityPanel(summary) {
  const clusters = summary.clusters.filter((c) => c.capacity && (!state.cluster || c.cluster === state.cluster));
  if (!clusters.length) {
    const why = summary.clusters.map((c) => c.capacityError).filter(Boolean).join("; ");
    return el("div", { class: "panel", id: "capacity" }, el("h2", {}, "GPU capacity"), el("p", { class: "muted" }, why ? "not read: " + why : "not read yet"));
  }
  const sum = { total: 0, inUse: 0, free: 0, freeTainted: 0, unavailable: 0, nodes: 0 };
  const pools = {};
  for (const c of clusters) {
    for (const key of Object.keys(sum)) sum[key] += c.capacity.total[key];
    for (const p of c.capacity.pools) {
      const name = (fleet() ? c.cluster + " · " : "") + p.name;
      pools[name] = p;
    }
  }
  const requested = summary.clusters.filter((c) => c.served && (!state.cluster || c.cluster === state.cluster)).reduce((a, c) => a + (c.gpusRequested || 0), 0);
  const cards = el("div", { class: "cards", id: "capacity-cards" },
    card("gpus-total", number(sum.total), `GPUs total (${plural(sum.nodes, "node")})`),
    card("gpus-inuse", number(sum.inUse), "GPUs in use (pods bound to nodes)"),
    card("gpus-free", number(sum.free), "GPUs free (any pod)", sum.free ? "good" : "warn"),
    sum.freeTainted ? card("gpus-free-tainted", number(sum.freeTainted), "GPUs free on tainted nodes") : null,
    sum.unavailable ? card("gpus-unavailable", number(sum.unavailable), "GPUs unavailable (NotReady, cordoned)") : null,
    card("gpus-requested", number(requested), "GPUs requested by running workloads"));
  const rows = Object.entries(pools).map(([name, p]) => el("tr", { "data-pool": name },
    el("th", { scope: "row" }, name), el("td", { class: "num" }, p.nodes), el("td", { class: "num" }, number(p.total)),
    el("td", { class: "num", "data-col": "inuse" }, number(p.inUse)), el("td", { class: "num", "data-col": "free" }, number(p.free)),
    el("td", { class: "barcell" }, el("div", { class: "stack", role: "img", "aria-label": `${name}: ${number(p.inUse)} of ${number(p.total)} GPUs in use, ${number(p.free)} free` },
      el("span", { class: "used", style: `width:${(100 * p.inUse) / Math.max(1, p.total)}%` }),
      el("span", { class: "free", style: `width:${(100 * p.free) / Math.max(1, p.total)}%` })))));
  const table = rows.length ? el("table", { id: "pools", "aria-label": "GPU pools" },
    el("thead", {}, el("tr", {}, ["Pool", "Nodes", "GPUs total", "GPUs in use", "GPUs free", "In use · free"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows)) : null;
  return el("section", { class: "panel", id: "capacity" }, el("h2", {}, "GPU capacity"), cards, table);
}

// What an on-call engineer looks at first: failed, degraded, stuck pending, crash-looping, other problems.
function attention(items) {
  const groups = [
    ["failed", "Failed", (w) => w.status === "Failed"],
    ["crashloop", "Crash-looping", (w) => (w.problems || {}).CrashLoopBackOff],
    ["degraded", "Degraded", (w) => w.status === "Degraded"],
    ["problems", "Other pod problems", (w) => Object.keys(w.problems || {}).some((r) => r !== "CrashLoopBackOff" && r !== "Unschedulable")],
    ["pending", "Stuck pending", (w) => (w.problems || {}).Unschedulable || (w.status === "Initializing" && w.pods.pending > 0)],
  ];
  const seen = new Set();
  const sections = [];
  for (const [id, title, test] of groups) {
    const members = items.filter((w) => test(w) && !seen.has(w));
    members.forEach((w) => seen.add(w));
    if (!members.length) continue;
    sections.push(el("div", { class: "attention-group", "data-group": id },
      el("h3", {}, title + " ", el("span", { class: "count" }, members.length)),
      el("ul", {}, members.map((w) => el("li", { "data-path": w.path },
        el("a", { href: href(w) }, (fleet() ? w.cluster + ": " : "") + w.namespace + "/" + w.name), " ", chip(w.status),
        w.reason ? el("div", { class: "reason" }, w.reason) : null)))));
  }
  return el("section", { class: "panel", id: "attention" }, el("h2", {}, "Needs attention"),
    sections.length ? sections : el("p", { class: "muted", id: "all-well" }, "Nothing: no workload failed, degraded, stuck or with a pod problem."));
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
  const head = el("tr", {}, columns.map(([key, label, , cls]) => el("th", { scope: "col", class: cls || "", "data-col": key, "aria-sort": state.sort === key ? (state.desc ? "descending" : "ascending") : "none" },
    el("button", { onclick: () => { state.desc = state.sort === key ? !state.desc : false; state.sort = key; render(); } },
      label + (state.sort === key ? (state.desc ? " ▾" : " ▴") : "")))));
  const rows = shown.map((w) => el("tr", {
    tabindex: "0", "data-path": w.path, "data-cluster": w.cluster || "",
    onclick: () => { location.hash = href(w); },
    onkeydown: (e) => { if (e.key === "Enter") location.hash = href(w); },
  },
    fleet() ? el("td", { "data-col": "cluster" }, w.cluster) : null,
    el("td", { "data-col": "namespace" }, w.namespace), el("td", { "data-col": "name", class: "name" }, el("a", { href: href(w) }, w.name)),
    el("td", { "data-col": "type" }, w.type),
    el("td", { "data-col": "status" }, chip(w.status), w.incomplete && w.incomplete.length ? el("span", { class: "muted", title: w.incomplete.join("; ") }, " (incomplete)") : null),
    el("td", { class: "wide", "data-col": "components" }, COLUMNS[4][2](w)),
    el("td", { class: "num", "data-col": "pods" }, count(w.pods.ready) + "/" + w.pods.desired),
    el("td", { class: "num", "data-col": "gpus" }, number(w.gpusDesired)),
    el("td", { class: "num", "data-col": "inuse" }, number(w.gpusInUse)),
    el("td", { "data-col": "problems", class: "problems", title: w.reason || "" }, problemsText(w.problems)),
    el("td", { "data-col": "age" }, age(w.creationTimestamp))));
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
  const oldCards = document.getElementById("totals");
  if (oldCards) oldCards.replaceWith(totals(filtered(lastItems), lastItems.length));
}

async function listPage() {
  const [list, status, summary] = await Promise.all([api("/api/v1/workloads"), api("/api/v1/status"), api("/api/v1/fleet")]);
  state.clusters = list.clusters || [];
  navigation();
  lastItems = list.items;
  const kept = list.items.filter((w) => !state.cluster || w.cluster === state.cluster);
  const app = document.getElementById("app");
  const active = document.activeElement;
  const focused = active && active.id;
  // A focused row (keyboard navigation) keeps its focus when a change redraws the table.
  const focusedRow = active && active.dataset && active.dataset.path ? [active.dataset.path, active.dataset.cluster] : null;
  app.replaceChildren(...[banner(status), el("h1", {}, fleet() ? "Fleet overview" : "Cluster overview"),
    el("div", { class: "overview" }, capacityPanel(summary), attention(kept)),
    el("h2", {}, "Workloads"), totals(filtered(list.items), list.items.length), filters(list.items),
    el("div", { class: "scroll" }, table(list.items))].filter(Boolean));
  if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
  if (focusedRow) {
    const again = [...document.querySelectorAll("#workloads tbody tr")].find((r) => r.dataset.path === focusedRow[0] && r.dataset.cluster === focusedRow[1]);
    if (again) again.focus();
  }
}

function podColour(pod) {
  if (pod.problem) return POD_COLOURS.problem;
  if (pod.ready) return POD_COLOURS.ready;
  return POD_COLOURS[(pod.phase || "").toLowerCase()] || POD_COLOURS.other;
}

function podChip(pod) {
  const what = pod.problem || (pod.ready ? "ready" : pod.phase || "?");
  return el("span", { class: "pod", "data-pod": pod.name, tabindex: "0", title: `${pod.name}: ${pod.phase}${pod.ready ? ", ready" : ""} on ${pod.node || "no node"}${pod.problem ? " — " + pod.problem : ""}` },
    el("i", { style: `background:${podColour(pod)}` }), pod.name, el("small", {}, " " + what));
}

function readyText(c) { return `${count(c.done ?? c.ready)}/${c.desired} ready`; }

// The component -> instance -> replica -> pod tree, nested as `wmap describe` prints it: no root row (the
// page's title is the root), instances and replica groups under their component, children under parents.
function treeView(tree) {
  const byName = Object.fromEntries(tree.pods.map((p) => [p.name, p]));
  const children = {};
  for (const c of tree.components) (children[c.parent ?? ""] ||= []).push(c);
  const podsOf = (names) => el("div", { class: "pods" }, names.map((n) => byName[n]).filter(Boolean).map(podChip));
  const groups = (instance) => {
    const keyed = instance.replicaGroups.filter((g) => g.key !== null);
    if (!keyed.length) return instance.replicaGroups.map((g) => podsOf(g.pods));
    return el("ul", {}, instance.replicaGroups.map((g) => el("li", { class: "replica" },
      el("span", { class: "label" }, `replica ${g.key ?? "<none>"}`), el("span", { class: "muted" }, ` ${g.ready}/${g.pods.length} ready`), podsOf(g.pods))));
  };
  const descendants = (name) => (children[name] || []).flatMap((c) => [c, ...descendants(c.name)]);
  const subtree = (c) => [c, ...descendants(c.name)].reduce((t, d) => ({ done: t.done + (d.pods.done ?? d.pods.ready), desired: t.desired + d.pods.desired }), { done: 0, desired: 0 });
  // A logical component keyed by replica (one LeaderWorkerSet group): each key with its pods by role.
  const byReplica = (c) => {
    const under = descendants(c.name);
    const pods = tree.pods.filter((p) => p.replica !== null && under.some((d) => d.name === p.component));
    // Only when the roles below are not instances of their own (a JobSet's replicatedJobs are: their
    // replicas are grouped under each instance, as wmap describe prints them).
    if (c.producesPods || !pods.length || under.some((d) => d.instances.some((i) => i.id !== null))) return null;
    const keys = [...new Set(pods.map((p) => p.replica))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    return el("ul", {}, keys.map((key) => {
      const members = pods.filter((p) => p.replica === key);
      return el("li", { class: "replica" }, el("span", { class: "label" }, `replica ${key}`),
        el("span", { class: "muted" }, ` ${members.filter((p) => p.ready).length}/${members.length} ready`),
        el("ul", {}, under.filter((d) => members.some((p) => p.component === d.name)).map((d) => {
          const mine = members.filter((p) => p.component === d.name);
          return el("li", {}, el("span", { class: "label" }, d.name), el("span", { class: "muted" }, ` ${mine.filter((p) => p.ready).length}/${mine.length} ready`), podsOf(mine.map((p) => p.name)));
        })));
    }));
  };
  const component = (c) => {
    const kind = c.kind ? c.kind.kind : c.producesPods ? "" : "(logical)";
    const single = c.instances.length === 1 && c.instances[0].id === null;
    const totals = subtree(c);
    const replicas = byReplica(c);
    const body = [];
    if (replicas) body.push(replicas);
    else if (single) body.push(groups(c.instances[0]));
    else if (c.producesPods || c.instances.some((i) => i.id !== null)) {
      body.push(el("ul", {}, c.instances.map((i) => el("li", { class: "instance", "data-instance": i.id },
        el("span", { class: "label" }, `instance ${i.id}`), el("span", { class: "muted" }, ` replicas ${i.replicas.replicas ?? "?"} · ${readyText(i.pods)}`), groups(i)))));
    }
    const kids = replicas ? [] : children[c.name] || [];
    if (kids.length) body.push(el("ul", {}, kids.map(component)));
    return el("li", { class: "component", "data-component": c.name },
      el("span", { class: "label" }, c.name), " ", el("span", { class: "muted" }, `${kind} · ${count(tree.incomplete ? null : totals.done)}/${totals.desired} ready`),
      c.error ? el("div", { class: "error" }, "error: " + c.error) : null, body);
  };
  const roots = (children[""] || []).flatMap((root) => {
    // The root component is the workload itself: its instances and children come first, without a row of its own.
    const li = component(root);
    return [...li.querySelectorAll(":scope > ul > li, :scope > .pods")].map((n) => (n.tagName === "LI" ? n : el("li", { class: "root-pods" }, n)));
  });
  const extra = [];
  if (tree.unattributed.length) extra.push(el("li", { class: "component" }, el("span", { class: "label" }, "unattributed pods"), podsOf(tree.unattributed.map((p) => p.name))));
  for (const p of tree.unattributed) byName[p.name] = p;
  if (tree.children.length) extra.push(el("li", { class: "component" }, el("span", { class: "label" }, "owned workloads"),
    el("ul", {}, tree.children.map((c) => el("li", {}, `${c.kind}/${c.name}`)))));
  return el("ul", { class: "tree", id: "tree" }, roots, extra);
}

function podTable(tree) {
  const pods = [...tree.pods, ...tree.unattributed];
  if (!pods.length) return el("p", { class: "muted", id: "pods" }, "No pods.");
  const reason = (p) => {
    const parts = [];
    if (p.problem) parts.push(p.problem + (p.problemMessage ? ": " + p.problemMessage : ""));
    else if (p.pendingReason) parts.push(p.pendingReason + (p.pendingMessage ? ": " + p.pendingMessage : ""));
    if (p.lastTermination) parts.push(`last ended: ${p.lastTermination.container} ${p.lastTermination.reason}${p.lastTermination.exitCode !== null ? " (exit " + p.lastTermination.exitCode + ")" : ""}`);
    return parts.join(" · ");
  };
  return el("div", { class: "scroll" }, el("table", { id: "pods", "aria-label": "pods" },
    el("thead", {}, el("tr", {}, ["Name", "Component", "Node", "Phase", "Ready", "Restarts", "Age", "Reason"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, pods.map((p) => el("tr", { "data-pod": p.name, class: p.problem ? "bad" : "" },
      el("td", { class: "name" }, p.name), el("td", {}, [p.component, p.instance !== p.component ? p.instance : null].filter(Boolean).join(" / ") || "—"),
      el("td", {}, p.node || "—"), el("td", {}, p.phase + (p.terminating ? " (terminating)" : "")), el("td", {}, p.ready ? "yes" : "no"),
      el("td", { class: "num", "data-col": "restarts" }, p.restarts), el("td", {}, age(p.created)),
      el("td", { class: "reason", "data-col": "reason" }, reason(p)))))));
}

// The Events of the workload, what it owns and its pods, as wmap describe lists them: newest last, warnings
// highlighted, a pod's name leading to its row of the pod table.
function eventsPanel(events, tree) {
  if (!events || !events.length) return el("p", { class: "muted", id: "events" }, "No events.");
  const pods = new Set([...tree.pods, ...tree.unattributed].map((p) => p.name));
  const seen = (e) => age(e.lastSeen) + (e.count > 1 ? ` (x${e.count} over ${age(e.firstSeen)})` : "");
  const object = (e) => {
    const text = `${e.object.kind.toLowerCase()}/${e.object.name}`;
    if (e.object.kind !== "Pod" || !pods.has(e.object.name)) return text;
    return el("a", { href: "#", class: "pod-link", "data-pod-link": e.object.name, onclick: (click) => { click.preventDefault(); showPod(e.object.name); } }, text);
  };
  return el("div", { class: "scroll" }, el("table", { id: "events", "aria-label": "events" },
    el("thead", {}, el("tr", {}, ["Type", "Reason", "Age", "From", "Object", "Message"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, events.map((e) => el("tr", { class: e.type === "Warning" ? "warning" : "", "data-type": e.type, "data-reason": e.reason },
      el("td", { class: "type" }, e.type), el("td", {}, e.reason), el("td", {}, seen(e)), el("td", {}, e.from || "—"),
      el("td", { "data-col": "object" }, object(e)), el("td", { class: "wrap message" }, e.message))))));
}

// Scroll to a pod's row of the pod table and mark it (the page's hash is the route: no anchor to jump to).
function showPod(name) {
  const row = [...document.querySelectorAll("#pods tr[data-pod]")].find((r) => r.dataset.pod === name);
  if (!row) return;
  for (const marked of document.querySelectorAll("#pods tr.target")) marked.classList.remove("target");
  row.classList.add("target");
  row.tabIndex = -1;
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
}

function explanation(status) {
  const check = (c) => el("li", { class: c.ok ? "ok" : "no" },
    `${c.ok ? "✓" : "✗"} ${c.kind}: expected ${JSON.stringify(c.expected)}, actual ${JSON.stringify(c.actual)}${c.detail ? " (" + c.detail + ")" : ""}`);
  const items = (status.explanations || []).map((e) => el("li", { class: e.matched ? "ok" : "no" },
    el("strong", {}, e.status), e.matched ? " — matched" : " — not matched",
    el("ul", {}, (e.matchers || []).map((m) => el("li", {}, `${m.index < 0 ? "the resolver's rule" : "rule " + m.index}${m.matched ? " matched" : ""}${m.error ? " — error: " + m.error : ""}`,
      el("ul", {}, (m.checks || []).map(check)))))));
  const conditions = (status.conditions || []).map((c) => el("tr", {}, el("td", {}, c.type), el("td", {}, c.status), el("td", {}, c.reason || ""), el("td", { class: "wrap" }, c.message || "")));
  return el("div", { class: "panel explain", id: "explanation" }, el("h2", {}, "Status ", chip(status.primary)),
    el("p", {}, "Matched: ", (status.matched || []).join(", ") || "nothing", status.phase ? " · phase " + status.phase : ""),
    conditions.length ? el("table", { id: "conditions" }, el("thead", {}, el("tr", {}, ["Condition", "Status", "Reason", "Message"].map((h) => el("th", {}, h)))), el("tbody", {}, conditions)) : null,
    el("details", { id: "rules" }, el("summary", {}, "Rule trace (the definition's status rules, as wmap explain prints them)"), el("ul", {}, items)));
}

function gangPanel(gang) {
  if (!gang || !gang.groups || !gang.groups.length) return el("div", { class: "panel", id: "gang" }, el("h2", {}, "Gang groups"), el("p", { class: "muted" }, "none"));
  return el("div", { class: "panel", id: "gang" }, el("h2", {}, "Gang groups"),
    el("table", {}, el("thead", {}, el("tr", {}, ["Group", "Min members", "Present", "Missing"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, gang.groups.map((g) => el("tr", {}, el("td", { class: "wrap" }, g.name || g.namePattern || ""), el("td", { class: "num" }, g.minMember),
        el("td", { class: "num" }, (g.members || {}).present ?? ""), el("td", { class: "num" }, (g.members || {}).missing ?? ""))))));
}

// The Fleet page: each cluster's workloads by status and GPUs (requested, in use, free when known).
async function fleetPage() {
  const [summary, status] = await Promise.all([api("/api/v1/fleet"), api("/api/v1/status")]);
  state.clusters = summary.clusters.map((c) => c.cluster);
  navigation();
  const gpu = (value) => (value === null || value === undefined ? "?" : number(value));
  const max = Math.max(1, ...summary.clusters.map((c) => (c.capacity ? c.capacity.total.total : c.gpusRequested || 0)));
  const rows = summary.clusters.map((c) => el("tr", { "data-cluster": c.cluster },
    el("th", { scope: "row" }, el("a", { href: "#/", onclick: () => { state.cluster = c.cluster; } }, c.cluster)),
    el("td", {}, c.served ? (c.ready ? "ready" : "not ready") : c.retrying ? "not read, retrying" : "not read", c.reason && c.reason !== "ready" ? el("div", { class: "muted" }, c.reason.replace(/^not read: /, "").replace(/ \(retrying\)$/, "")) : null),
    el("td", { class: "num", "data-col": "workloads" }, c.workloads ?? "?"),
    el("td", { "data-col": "statuses" }, Object.entries(c.byStatus).map(([s, n]) => el("span", { class: "chip " + s, "data-status": s }, s + " " + n))),
    el("td", { class: "num", "data-col": "gpus" }, gpu(c.gpusRequested)),
    el("td", { class: "num", "data-col": "in-use" }, gpu(c.gpusInUse)),
    el("td", { class: "num", "data-col": "free" }, gpu(c.gpusFree)),
    el("td", { class: "num", "data-col": "total" }, gpu(c.capacity ? c.capacity.total.total : null)),
    el("td", { class: "barcell" }, c.capacity ? el("div", { class: "stack", style: `width:${(100 * c.capacity.total.total) / max}%`, role: "img", "aria-label": `${c.cluster}: ${gpu(c.capacity.total.inUse)} of ${gpu(c.capacity.total.total)} GPUs in use` },
      el("span", { class: "used", style: `width:${(100 * c.capacity.total.inUse) / Math.max(1, c.capacity.total.total)}%` }),
      el("span", { class: "free", style: `width:${(100 * c.capacity.total.free) / Math.max(1, c.capacity.total.total)}%` })) : null)));
  const head = el("tr", {}, ["Cluster", "State", "Workloads", "By status", "GPUs requested by running workloads", "GPUs in use", "GPUs free", "GPUs total", "In use · free"].map((h) => el("th", { scope: "col" }, h)));
  document.getElementById("app").replaceChildren(...[banner(status), el("h1", {}, "Fleet"),
    el("div", { class: "scroll" }, el("table", { id: "fleet", "aria-label": "clusters" }, el("thead", {}, head), el("tbody", {}, rows)))].filter(Boolean));
}

// The Queues page: each cluster's scheduler queues as a tree (quota, limit, GPUs used with a bar against the
// quota, borrowed, workloads admitted and waiting, GPUs waiting, GPUs in use), then the workloads that wait and why, in
// the scheduler's words (docs/queues.md). The figures are /api/v1/queues, as `wmap queues` prints them.
async function queuesPage() {
  const [doc, status] = await Promise.all([api("/api/v1/queues"), api("/api/v1/status")]);
  navigation();
  const gpu = (value) => (value === null || value === undefined ? "–" : number(value));
  const sections = [];
  for (const c of doc.clusters) {
    const title = doc.clusters.length > 1 || c.cluster ? el("h2", {}, "Cluster " + c.cluster) : null;
    if (c.queues === null) {
      sections.push(title, el("p", { class: "muted" }, "Queues not watched."));
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
        el("td", { class: "num", "data-col": "gpus-waiting" }, gpu(g.waiting)),
        el("td", { class: "num", "data-col": "gpus-in-use" }, gpu(g.inUse))));
      for (const child of q.children) if (byKey[child]) visit(byKey[child], depth + 1);
    };
    for (const q of c.queues) if (!q.parent || !byKey[q.parent]) visit(q, 0);
    const head = el("tr", {}, ["Scheduler", "Queue", "Kind", "GPU quota", "GPU limit", "GPUs used", "", "Borrowed", "Admitted", "Waiting", "GPUs waiting", "GPUs in use"].map((h) => el("th", { scope: "col" }, h)));
    const waiting = c.workloads.filter((w) => ["Pending", "QuotaReserved", "Unknown"].includes(w.state));
    sections.push(title,
      c.queues.length ? el("table", { class: "queues", "aria-label": "queues" + (c.cluster ? " of " + c.cluster : "") }, el("thead", {}, head), el("tbody", {}, rows))
        : el("p", { class: "muted" }, "No Kueue, KAI or Volcano queue in this cluster."),
      el("h2", {}, "Waiting workloads"),
      waiting.length ? el("table", { class: "waiting", "aria-label": "waiting workloads" },
        el("thead", {}, el("tr", {}, ["Namespace", "Workload", "Queue", "State", "GPUs desired", "Why (the scheduler's words)"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, waiting.map((w) => el("tr", { "data-workload": w.namespace + "/" + w.name },
          el("td", { "data-col": "namespace" }, w.namespace), el("td", { "data-col": "workload" }, w.kind + "/" + w.name),
          el("td", { "data-col": "queue" }, w.queue), el("td", { "data-col": "state" }, w.state),
          el("td", { class: "num", "data-col": "gpus" }, gpu(w.gpus)),
          el("td", { class: "why", "data-col": "why" }, (w.reason ? w.reason + (w.message ? ": " : "") : "") + w.message)))))
        : el("p", { class: "muted" }, "Nothing waits."),
      c.stale.length ? el("p", { class: "muted" }, "May be out of date: " + c.stale.join("; ")) : null);
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
  document.getElementById("app").replaceChildren(...[
    banner(status),
    el("p", {}, el("a", { href: "#/" }, "← overview")),
    el("h1", {}, `${row.type} ${cluster ? cluster + ": " : ""}${row.namespace}/${row.name} `, chip(row.status), row.incomplete.length ? " (incomplete)" : ""),
    row.reason ? el("p", { class: "reason-banner", id: "reason", role: "status" }, row.reason) : null,
    row.incomplete.length ? el("p", { class: "muted", id: "incomplete" }, "Counts unknown: " + row.incomplete.join("; ")) : null,
    el("div", { class: "cards" },
      card("pods-ready", count(row.pods.ready) + "/" + row.pods.desired, "pods ready / desired"),
      card("gpus-desired", number(row.gpusDesired), "GPUs desired"),
      card("gpus-inuse", number(row.gpusInUse), "GPUs in use"),
      card("nodes", row.nodes.length, "nodes"),
      card("definition", row.definition, "definition", "small")),
    el("h2", {}, "Tree"), el("div", { class: "panel" }, treeView(tree)),
    el("h2", {}, "Pods"), podTable(tree),
    el("h2", {}, "Events"), eventsPanel(doc.events, tree),
    el("div", { class: "grid2" }, explanation(tree.status), gangPanel(doc.gang))].filter(Boolean));
}

function notFound(what) {
  document.title = "Not found · workload-map";
  document.getElementById("app").replaceChildren(el("div", { class: "panel notfound", id: "not-found", role: "alert" },
    el("h1", {}, "Not found"), el("p", {}, what), el("p", {}, el("a", { href: "#/" }, "← back to the overview"))));
}

// One render at a time; one asked for meanwhile runs when it ends, reading the hash then. Overlapping renders
// let a slower one put its older page back over a newer one (the event stream's first change arrives while
// the first page loads; a click navigates while a change's render waits for the API).
let rendering = null, renderAgain = false;
function render() {
  if (rendering) { renderAgain = true; return rendering; }
  rendering = (async () => {
    try { do { renderAgain = false; await renderPage(); } while (renderAgain); } finally { rendering = null; }
  })();
  return rendering;
}

async function renderPage() {
  const hash = location.hash || "#/";
  document.title = "workload-map";
  try {
    if (hash.startsWith("#/w/")) await workloadPage(decodeURIComponent(hash.slice(4)));
    else if (hash === "#/fleet") await fleetPage();
    else if (hash === "#/queues") await queuesPage();
    else if (hash === "#/" || hash === "#") await listPage();
    else notFound(`No page ${hash.slice(1)} here.`);
    document.body.dataset.version = String(state.version);
  } catch (error) {
    if (error instanceof NotFound) notFound(`No workload ${decodeURIComponent(hash.slice(4)).split("?")[0]}: it may have been deleted, or the path is wrong.`);
    else document.getElementById("app").replaceChildren(el("p", { role: "alert" }, "Cannot load: " + error.message));
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
