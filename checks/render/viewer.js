// The yarnspec trace viewer: reads the JSON in #trace-data and draws one step at a time.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("trace-data").textContent);
  const steps = data.steps;
  const last = steps.length - 1;
  const loopStart = data.loop_start;
  const lasso = loopStart !== null && loopStart < last;
  const cluster = data.cluster;
  const SVG = "http://www.w3.org/2000/svg";
  const BAR = 400;        // pixels of the widest node bar
  const ROW = 34;         // pixels per node row
  const LIVE = { ALLOCATED: 1, RUNNING: 1 };
  const LABEL = 200;      // pixels of the queues' name column

  // A name too wide for its column loses characters from the left ("\u2026analytics.adhoc"),
  // so sibling queues stay apart; the full name is the row's tooltip.
  function fitFromLeft(text, name, width) {
    const parts = name.split(".");
    for (let k = 1; k < parts.length && text.getComputedTextLength() > width; k++) {
      text.textContent = "\u2026" + parts.slice(k).join(".");  // whole leading segments first
    }
    let shown = text.textContent.replace(/^\u2026/, "");
    while (shown.length > 1 && text.getComputedTextLength() > width) {
      shown = shown.slice(1);
      text.textContent = "\u2026" + shown;
    }
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function mem(values) { return values && values.length ? values[0] : 0; }
  function partitionMem(perPartition, partition) {
    return perPartition && perPartition[partition] ? mem(perPartition[partition]) : 0;
  }

  // Colours: a hue per leaf queue, a lightness per app within its queue.
  const hues = {};
  const appColour = {};
  if (cluster) {
    const leaves = cluster.queues.filter(q => q.leaf).map(q => q.path);
    leaves.forEach((path, i) => { hues[path] = Math.round((i * 360) / Math.max(leaves.length, 1) + 210) % 360; });
    const perQueue = {};
    for (const [app, queue] of Object.entries(cluster.apps)) {
      const n = (perQueue[queue] = (perQueue[queue] || 0) + 1);
      appColour[app] = `hsl(${hues[queue] || 0}, 60%, ${Math.max(30, 62 - 14 * (n - 1))}%)`;
    }
  }
  function colourOf(app) { return appColour[app] || "#90a4ae"; }

  // Page skeleton.
  // The head: the property in plain words, the world's why, the outcome (and a lasso's reason);
  // the counterexample's detailed message (premise, fairness) folded below.
  const world = data.parameters.world || data.model;
  const about = data.about || { property: data.property, why: "", outcome: `${data.kind} ${data.property} violated`, loop: "" };
  const header = el("header");
  header.append(el("h1", { id: "property" }, about.property));
  if (about.why) header.append(el("p", { id: "why" }, `Why it is asked: ${about.why}`));
  header.append(el("p", { id: "outcome" }, `${about.outcome} \u2014 ${world} (${data.variant || "no variant"})`));
  if (about.loop) header.append(el("p", { id: "loop-reason" }, about.loop));
  const detail = el("details", { id: "detail" });
  detail.append(el("summary", {}, "the counterexample in detail (premise, fairness)"), el("p", { id: "message" }, data.message));
  header.append(detail);
  const controls = el("div", { id: "controls" });
  const prev = el("button", { id: "prev", type: "button", title: "previous step (left arrow)" }, "\u25c0 prev");
  const next = el("button", { id: "next", type: "button", title: "next step (right arrow)" }, "next \u25b6");
  const slider = el("input", { id: "slider", type: "range", min: "0", max: String(last), value: "0", "aria-label": "step" });
  const label = el("span", { id: "step-label" });
  controls.append(prev, slider, next, label);
  const list = el("ol", { id: "steps" });
  steps.forEach((step, i) => {
    const item = el("li", { "data-step": String(i) }, `${String(i).padStart(3, "\u2007")}  ${step.action || "(initial state)"}`);
    if (lasso && i >= loopStart) item.classList.add("loop");
    if (lasso && i === loopStart) item.classList.add("loop-start");
    if (data.kind !== "progress" && i === last) item.classList.add("violating");
    item.addEventListener("click", () => show(i));
    list.append(item);
  });
  const main = el("main");
  const action = el("div", { id: "action" });
  const loopNote = el("div", { id: "loop-note" });
  const verdictNote = el("div", { id: "verdict-note" });
  const changes = el("ul", { id: "changes" });
  const state = el("pre", { id: "state" });
  const details = el("details", { id: "state-details" });
  details.append(el("summary", {}, "the whole state"), state);
  main.append(action, loopNote, verdictNote);
  let clusterSvg = null, queueSvg = null, legend = null;
  if (cluster) {
    main.append(el("h2", {}, "Nodes (memory; containers by app, coloured by queue)"));
    legend = el("div", { id: "legend" });
    for (const [app, queue] of Object.entries(cluster.apps)) {
      const key = el("span");
      const swatch = el("i");
      swatch.style.background = colourOf(app);
      key.append(swatch, document.createTextNode(`${app} (${queue})`));
      legend.append(key);
    }
    legend.append(el("span", {}, "dashed, hatched: reserved \u00b7 red cross: marked for preemption \u00b7 grey: free"));
    clusterSvg = svgEl("svg", { id: "cluster", width: BAR + 460, height: 10 });
    queueSvg = svgEl("svg", { id: "queues", width: LABEL + BAR + 300, height: 10 });
    main.append(legend, clusterSvg, el("h2", {}, "Queues (memory used; | guaranteed, dashed | maximum)"), queueSvg);
  } else {
    main.append(el("p", { id: "no-cluster" }, `The model ${data.model} has no cluster to draw: its states are shown as they are.`));
  }
  main.append(el("h2", {}, "What changed"), changes, details);
  const layout = el("div", { id: "layout" });
  layout.append(list, main);
  document.body.append(header, controls, layout);

  function patterns(svg) {
    const defs = svgEl("defs");
    const hatch = svgEl("pattern", { id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
    hatch.append(svgEl("rect", { width: 6, height: 6, fill: "#ffffff" }), svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#546e7a", "stroke-width": 3 }));
    defs.append(hatch);
    svg.append(defs);
  }

  function drawNodes(st) {
    clusterSvg.replaceChildren();
    patterns(clusterSvg);
    const names = Object.keys(cluster.nodes);
    const widest = Math.max(1, ...names.map(n => mem(cluster.nodes[n].capacity)));
    const marks = st.marks || {};
    names.forEach((name, row) => {
      const y = 6 + row * ROW;
      const capacity = mem(cluster.nodes[name].capacity);
      const width = (capacity / widest) * BAR;
      const scale = width / Math.max(capacity, 1);
      const g = svgEl("g", { class: "node", "data-node": name });
      const live = st.nodes && st.nodes[name];
      g.append(svgEl("text", { x: 0, y: y + 16, class: "label" }, name));
      const x0 = 40;
      if (!live) {
        g.append(svgEl("rect", { x: x0, y: y, width: width, height: 22, fill: "#eeeeee", stroke: "#9e9e9e", "stroke-dasharray": "2 2" }));
        g.append(svgEl("text", { x: x0 + 6, y: y + 15, fill: "#757575" }, "not registered (lost or not yet joined)"));
        clusterSvg.append(g);
        return;
      }
      g.append(svgEl("rect", { x: x0, y: y, width: width, height: 22, fill: "#e0e0e0", stroke: "#455a64", class: "capacity" }));
      let x = x0;
      const here = (st.containers || []).filter(c => c.node === name);
      for (const c of here.filter(c => LIVE[c.state])) {
        const w = mem(c.resource) * scale;
        const box = svgEl("g", { class: "container", "data-id": String(c.id), "data-app": c.app });
        box.append(svgEl("title", {}, `c${c.id}: ${c.app}${c.am ? " (AM)" : ""}, ${JSON.stringify(c.resource)}, ${c.state}`));
        box.append(svgEl("rect", { x: x, y: y, width: w, height: 22, fill: colourOf(c.app), stroke: "#263238" }));
        box.append(svgEl("text", { x: x + 3, y: y + 15, fill: "#ffffff" }, `c${c.id}${c.am ? " AM" : ""}`));
        if (("c" + c.id) in marks) {
          box.classList.add("marked");
          box.append(svgEl("rect", { x: x + 1.5, y: y + 1.5, width: Math.max(w - 3, 0), height: 19, fill: "none", stroke: "#d50000", "stroke-width": 3 }));
          box.append(svgEl("line", { x1: x, y1: y, x2: x + w, y2: y + 22, stroke: "#d50000", "stroke-width": 2 }));
        }
        g.append(box);
        x += w;
      }
      const used = mem(live.used), free = mem(live.free);
      const freeWidth = Math.max(0, free * scale);
      if (freeWidth > 0) g.append(svgEl("rect", { x: x0 + used * scale, y: y + 4, width: freeWidth, height: 14, fill: "#f5f5f5", class: "free" }));
      let rx = x0 + used * scale;
      for (const c of here.filter(c => c.state === "RESERVED")) {
        const w = mem(c.resource) * scale;
        const box = svgEl("g", { class: "container reserved", "data-id": String(c.id), "data-app": c.app });
        box.append(svgEl("title", {}, `c${c.id}: reserved for ${c.app}, ${JSON.stringify(c.resource)}`));
        box.append(svgEl("rect", { x: rx, y: y - 3, width: w, height: 28, fill: "url(#hatch)", "fill-opacity": 0.55, stroke: colourOf(c.app), "stroke-width": 2.5, "stroke-dasharray": "5 3" }));
        box.append(svgEl("text", { x: rx + 3, y: y + 15, fill: "#263238" }, `c${c.id} reserved`));
        g.append(box);
        rx += w;
      }
      g.append(svgEl("text", { x: x0 + Math.max(width, rx - x0) + 8, y: y + 15 },
        `${used}/${capacity} MB used, ${free} free${live.used.length > 1 ? `; ${live.used[1]}/${cluster.nodes[name].capacity[1]} vcores` : ""}`));
      clusterSvg.append(g);
    });
    clusterSvg.setAttribute("height", String(12 + names.length * ROW));
  }

  function drawQueues(st, index) {
    queueSvg.replaceChildren();
    const frame = cluster.frames[index];
    const rows = [];
    for (const q of cluster.queues) {
      for (const partition of cluster.partitions) {
        const limits = frame.queues[q.path][partition];
        const used = partitionMem((st.queues || {})[q.path], partition);
        if (cluster.partitions.length > 1 && !used && !mem(limits.maximum)) continue;
        rows.push({ q, partition, used, guaranteed: mem(limits.guaranteed), maximum: mem(limits.maximum) });
      }
    }
    const widest = Math.max(1, ...rows.map(r => Math.max(r.maximum, r.used)));
    rows.forEach((r, i) => {
      const y = 6 + i * 26;
      const depth = r.q.path.split(".").length - 1;
      const x0 = LABEL;
      const scale = BAR / widest;
      const g = svgEl("g", { class: "queue", "data-queue": r.q.path });
      const name = r.q.path + (r.partition ? ` [${r.partition}]` : "");
      g.append(svgEl("title", {}, name));
      const text = svgEl("text", { x: depth * 10, y: y + 13, class: "label" }, name);
      g.append(text);
      queueSvg.append(g);
      fitFromLeft(text, name, x0 - 8 - depth * 10);
      g.append(svgEl("rect", { x: x0, y: y, width: r.maximum * scale, height: 16, fill: "#f5f5f5", stroke: "#b0bec5" }));
      const hue = hues[r.q.path];
      g.append(svgEl("rect", { x: x0, y: y, width: r.used * scale, height: 16, fill: hue === undefined ? "#78909c" : `hsl(${hue}, 55%, 50%)`, class: "used" }));
      g.append(svgEl("line", { x1: x0 + r.guaranteed * scale, y1: y - 3, x2: x0 + r.guaranteed * scale, y2: y + 19, stroke: "#1b5e20", "stroke-width": 2.5, class: "guaranteed" }));
      g.append(svgEl("line", { x1: x0 + r.maximum * scale, y1: y - 3, x2: x0 + r.maximum * scale, y2: y + 19, stroke: "#b71c1c", "stroke-width": 2, "stroke-dasharray": "3 2", class: "maximum" }));
      g.append(svgEl("text", { x: x0 + Math.max(r.maximum, r.used) * scale + 8, y: y + 13 },
        `used ${r.used} MB, guaranteed ${r.guaranteed}, maximum ${r.maximum}`));
    });
    queueSvg.setAttribute("height", String(10 + rows.length * 26));
  }

  let current = 0;
  function show(i) {
    current = Math.max(0, Math.min(last, i));
    const step = steps[current];
    slider.value = String(current);
    label.textContent = `step ${current} of ${last}`;
    prev.disabled = current === 0;
    next.disabled = current === last && !lasso;
    for (const item of list.children) item.classList.toggle("current", Number(item.dataset.step) === current);
    const item = list.children[current];
    if (item && item.scrollIntoView) item.scrollIntoView({ block: "nearest" });
    action.textContent = `${current}: ${step.action || "(initial state)"}`;
    loopNote.textContent = lasso && current >= loopStart
      ? `in the loop: after step ${last} the run returns to step ${loopStart}, and steps ${loopStart + 1}..${last} repeat for ever`
      : (loopStart !== null && current === last && !lasso ? `the run stutters here for ever` : "");
    verdictNote.textContent = data.kind !== "progress" && current === last ? `${data.property} violated here: ${data.message}` : "";
    changes.replaceChildren();
    for (const line of step.changes.length ? step.changes : ["(no change)"]) {
      const entry = el("li", {}, line);
      if (current > 0 && line.includes(": + ")) entry.classList.add("added");
      if (current > 0 && line.includes(": - ")) entry.classList.add("removed");
      changes.append(entry);
    }
    state.textContent = JSON.stringify(step.state, null, 1);
    if (cluster) { drawNodes(step.state); drawQueues(step.state, current); }
    if (location.hash !== `#step=${current}`) history.replaceState(null, "", `#step=${current}`);
  }

  prev.addEventListener("click", () => show(current - 1));
  next.addEventListener("click", () => show(current === last && lasso ? loopStart : current + 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", event => {
    if (event.key === "ArrowLeft") prev.click();
    if (event.key === "ArrowRight") next.click();
  });
  function fromHash() {
    const found = /^#step=(\d+)$/.exec(location.hash);
    return found ? Number(found[1]) : 0;
  }
  window.addEventListener("hashchange", () => show(fromHash()));
  show(fromHash());
})();
