#!/usr/bin/env node
// A spark-placement adapter in JavaScript: an independent port of Spark's
// LocalityPreferredContainerPlacementStrategy.localityOfRequestedContainers behind the
// yarnspec process protocol (docs/validating.md). Validate it with
//   yarnspec validate spark-placement --impl "process:node docs/examples/placement_adapter.js"
"use strict";
const readline = require("readline");

function racksOf(hosts, resolver) {
  const racks = [];
  for (const host of hosts) {
    const rack = Object.prototype.hasOwnProperty.call(resolver, host) && host !== "*" ? resolver[host] : resolver["*"];
    if (rack !== undefined && rack !== null && !racks.includes(rack)) racks.push(rack);
  }
  return racks;
}

function localityOfRequestedContainers(input) {
  const cores = input.executor_cores ?? 1;
  const cpus = input.task_cpus ?? 1;
  if (cores < cpus) throw new Error(`an executor of ${cores} cores cannot run a task of ${cpus} cpus`);
  // 1. executors the locality-aware tasks need
  const executors = Math.ceil(input.num_locality_aware_tasks / Math.floor(cores / cpus));
  // 2. each matched pending request counts as one container spread over its nodes
  const pending = (input.locality_matched_pending_requests ?? []).map((r) => r.nodes).filter((n) => n && n.length);
  const slots = new Map();
  for (const nodes of pending) for (const node of nodes) slots.set(node, (slots.get(node) ?? 0) + 1);
  const totalSlots = [...slots.values()].reduce((a, b) => a + b, 0);
  // 3. containers still needed per hint host, in the hint map's order
  const hints = input.host_to_local_task_count;
  const totalTasks = hints.reduce((sum, [, count]) => sum + count, 0);
  const allocated = input.allocated_host_to_container_count ?? {};
  const need = hints.map(([host, count]) => {
    const expected = totalTasks ? (count * executors) / totalTasks : NaN;
    const share = slots.has(host) ? (slots.get(host) * pending.length) / totalSlots : 0;
    const gap = Math.ceil(expected - ((allocated[host] ?? 0) + share));
    return [host, Number.isNaN(gap) ? 0 : Math.max(0, gap)];
  });
  // 4. the requests beyond the total need carry no preference and come first
  const totalNeed = need.reduce((sum, [, n]) => sum + n, 0);
  const free = Math.max(0, input.num_containers - totalNeed);
  const aware = input.num_containers - free;
  const nodes = Array(free).fill(null);
  const racks = Array(free).fill(null);
  if (aware > 0) {
    // 5. scale the needs so that the largest is `aware`; 6. request k lists hosts whose ratio > k
    const largest = Math.max(...need.map(([, n]) => n));
    const ratios = need.map(([host, n]) => [host, Math.ceil((n * aware) / largest)]);
    for (let k = 0; k < aware; k++) {
      const hosts = ratios.filter(([, ratio]) => ratio > k).map(([host]) => host);
      nodes.push(hosts);
      racks.push(racksOf(hosts, input.rack_resolver ?? {}));
    }
  }
  return { nodes, racks };
}

function answer(request) {
  if (request.op === "hello") {
    return { name: "placement_adapter.js", version: "1", contracts: ["spark-placement"] };
  }
  if (request.op === "locality_of_requested_containers") return localityOfRequestedContainers(request.input);
  throw new Error(`unknown op ${request.op}`);
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  let reply;
  try {
    reply = { id: request.id, output: answer(request) };
  } catch (error) {
    reply = { id: request.id, error: String(error.message) };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
