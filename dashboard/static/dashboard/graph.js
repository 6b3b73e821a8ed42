// The force-directed view of a session's graph (D3, served locally), with time travel by message.
(function () {
  "use strict";
  var box = document.getElementById("graph");
  if (!box || !window.d3) return;
  var range = document.getElementById("graph-position");
  var label = document.getElementById("graph-position-label");
  var empty = document.getElementById("graph-empty");
  var last = Number(box.dataset.last);
  var atNow = !new URLSearchParams(location.search).has("position");
  var positions = new Map(); // node id -> {x, y}, kept across reloads so the layout stays calm
  var width = box.clientWidth, height = box.clientHeight;
  var svg = d3.select(box).append("svg").attr("viewBox", [0, 0, width, height]);
  var zoomed = svg.append("g");
  svg.call(d3.zoom().scaleExtent([0.2, 4]).on("zoom", function (e) { zoomed.attr("transform", e.transform); }));
  var linkLayer = zoomed.append("g"), nodeLayer = zoomed.append("g");
  var simulation = d3.forceSimulation()
    .force("link", d3.forceLink().id(function (d) { return d.id; }).distance(80))
    .force("charge", d3.forceManyBody().strength(-300))
    .force("center", d3.forceCenter(width / 2, height / 2))
    // Facts without edges would drift off: a gentle pull keeps every node in the frame.
    .force("x", d3.forceX(width / 2).strength(0.045))
    .force("y", d3.forceY(height / 2).strength(0.07))
    .force("collide", d3.forceCollide().radius(function (d) { return radius(d) + 10; }));
  var colors = { completed: "#22c55e", in_progress: "#3b82f6", pending: "#9ca3af", failed: "#f97316",
    superseded: "#9ca3af", invalidated: "#9ca3af", archived: "#a8a29e", contested: "#e11d48" };

  function radius(d) { return 5 + Math.min(Math.max(d.importance, 0), 5) * 2.4; }

  function showLabel() {
    label.textContent = atNow ? "now" : "message #" + range.value + " of " + last;
  }

  function load() {
    var url = box.dataset.src + (atNow ? "" : "?position=" + range.value);
    fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(draw);
  }

  function draw(data) {
    empty.hidden = data.nodes.length > 0;
    data.nodes.forEach(function (n) { var p = positions.get(n.id); if (p) { n.x = p.x; n.y = p.y; } });
    var link = linkLayer.selectAll("line").data(data.links, function (d) { return d.source + "-" + d.target + "-" + d.type; })
      .join("line").attr("class", function (d) { return "link " + d.type + (d.retired ? " retired" : ""); });
    var node = nodeLayer.selectAll("g.node").data(data.nodes, function (d) { return d.id; })
      .join(function (enter) {
        var g = enter.append("g");
        g.append("circle");
        g.append("text").attr("dx", 10).attr("dy", 4);
        g.append("title");
        g.on("click", function (e, d) { location.href = box.dataset.nodeUrl.replace("/0/", "/" + d.id + "/"); });
        g.call(d3.drag()
          .on("start", function (e, d) { if (!e.active) simulation.alphaTarget(0.3).restart(); d.fx = d.x; d.fy = d.y; })
          .on("drag", function (e, d) { d.fx = e.x; d.fy = e.y; })
          .on("end", function (e, d) { if (!e.active) simulation.alphaTarget(0); d.fx = null; d.fy = null; }));
        return g;
      })
      .attr("class", function (d) { return "node " + d.status; });
    node.select("circle").attr("r", radius).attr("fill", function (d) { return colors[d.status] || "#6366f1"; });
    node.select("text").text(function (d) { return d.label.length > 40 ? d.label.slice(0, 39) + "…" : d.label; });
    node.select("title").text(function (d) { return d.type + " · " + d.status.replace("_", " ") + "\n" + d.label; });
    simulation.nodes(data.nodes).on("tick", function () {
      data.nodes.forEach(function (d) {
        d.x = Math.max(12, Math.min(width - 12, d.x)); d.y = Math.max(12, Math.min(height - 12, d.y));
      });
      link.attr("x1", function (d) { return d.source.x; }).attr("y1", function (d) { return d.source.y; })
          .attr("x2", function (d) { return d.target.x; }).attr("y2", function (d) { return d.target.y; });
      node.attr("transform", function (d) { positions.set(d.id, { x: d.x, y: d.y }); return "translate(" + d.x + "," + d.y + ")"; });
    });
    simulation.force("link").links(data.links);
    simulation.alpha(0.6).restart();
  }

  var timer = null;
  range.addEventListener("input", function () {
    atNow = false;
    showLabel();
    var url = new URL(location.href); url.searchParams.set("position", range.value);
    history.replaceState(null, "", url);
    clearTimeout(timer); timer = setTimeout(load, 150);
  });
  document.getElementById("graph-now").addEventListener("click", function () {
    atNow = true; range.value = last; showLabel();
    history.replaceState(null, "", location.pathname);
    load();
  });
  document.body.addEventListener("session-graph-changed", function () { if (atNow) load(); });
  showLabel();
  load();
})();
