/// The HTML report's style and script, inlined into every page (the page
/// fetches nothing). The script builds the page from the run's data (a
/// JSON block in the page): the failures first, then the timeline, whose
/// groups are lanes that fold (`<details>`), foreach lanes folded, every
/// row opening the step's details; a status filter and a label search.
enum HTMLPage {
    static let style = #"""
        :root{--ok:#1a7f37;--fail:#cf222e;--cancel:#bf8700;--skip:#8c959f;--run:#0969da;--line:#d1d9e0;--muted:#59636e;--bg2:#f6f8fa}
        *{box-sizing:border-box}
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:16px 20px;color:#1f2328;background:#fff}
        h1{font-size:20px;margin:0 0 4px;overflow-wrap:anywhere} h2{font-size:16px;margin:20px 0 8px}
        .meta{color:var(--muted);margin-bottom:12px}
        .badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600;font-size:13px;vertical-align:middle}
        .succeeded{--c:var(--ok)}.up-to-date{--c:#6fbf73}.failed,.timedOut{--c:var(--fail)}.cancelled,.interrupted{--c:var(--cancel)}.skipped,.pending{--c:var(--skip)}.running{--c:var(--run)}
        .badge{background:var(--c,var(--skip))}
        .toolbar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;position:sticky;top:0;background:#fff;padding:8px 0;z-index:2;border-bottom:1px solid var(--line)}
        .toolbar label{white-space:nowrap;cursor:pointer}
        .toolbar input[type=search]{font:inherit;padding:3px 8px;min-width:14em;border:1px solid var(--line);border-radius:6px}
        .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;background:var(--c);margin:0 4px 0 2px;vertical-align:middle}
        .failure{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;padding:8px 12px;margin:0 0 10px}
        .failure h3{font-size:14px;margin:0 0 4px;overflow-wrap:anywhere}
        .failure h3 small{color:var(--muted);font-weight:400}
        pre{background:var(--bg2);padding:8px;margin:4px 0 8px;overflow:auto;max-height:24em;white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
        .timeline{border:1px solid var(--line);border-radius:6px;overflow:hidden}
        table.stats{border-collapse:collapse;margin-bottom:8px}table.stats th,table.stats td{padding:2px 8px;border-bottom:1px solid var(--line);text-align:right;font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
        table.stats td:first-child,table.stats th:first-child{text-align:left}svg.distribution rect{fill:var(--run)}
        .row{display:grid;grid-template-columns:minmax(8em,26%) 1fr 5.5em;align-items:center;min-height:24px;border-bottom:1px solid #eef1f4;cursor:pointer;list-style:none}
        .row::-webkit-details-marker{display:none}
        .row:hover{background:#f6f8fa}
        .label{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;padding:0 8px 0 calc(8px + var(--depth,0) * 16px);font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
        .lane>.row .label{font-weight:600}
        .lane>.row .label::before{content:"▸ ";color:var(--muted)}
        .lane[open]>.row .label::before{content:"▾ "}
        .lane>.row .label small{font-weight:400;color:var(--muted)}
        .track{position:relative;height:24px;background-image:repeating-linear-gradient(to right,#e6e9ed 0 1px,transparent 1px var(--tick,10%))}
        .bar{position:absolute;top:5px;height:14px;min-width:3px;border-radius:3px;background:var(--c);box-shadow:0 0 0 1px rgba(0,0,0,.15)}
        .lane>.row .bar{top:9px;height:6px;opacity:.55}
        .bar.critical{outline:2px solid var(--run);outline-offset:1px}
        .dur{text-align:right;padding-right:8px;color:var(--muted);font-variant-numeric:tabular-nums;font-size:12px}
        .axis{display:grid;grid-template-columns:minmax(8em,26%) 1fr 5.5em;height:22px;border-bottom:1px solid var(--line);background:var(--bg2)}
        .axis .track{height:22px;background:none}
        .tick{position:absolute;top:3px;font-size:11px;color:var(--muted);transform:translateX(-50%);white-space:nowrap}
        .tick.first{transform:none}.tick.last{transform:translateX(-100%)}
        .info{padding:6px 12px 8px calc(12px + var(--depth,0) * 16px);background:#fbfcfd;border-bottom:1px solid var(--line)}
        .info dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 6px}
        .info dt{color:var(--muted)} .info dd{margin:0;overflow-wrap:anywhere}
        .info table{border-collapse:collapse;margin:4px 0 8px} .info td,.info th{border-bottom:1px solid var(--line);padding:2px 8px;text-align:left;vertical-align:top}
        .empty{color:var(--muted);padding:8px}
        [hidden]{display:none!important}
        """#

    static let script = #"""
        (function () {
          "use strict";
          var errors = [];
          window.addEventListener("error", function (event) {
            errors.push(String(event.message));
            document.documentElement.setAttribute("data-errors", errors.join(" | "));
          });
          var data = JSON.parse(document.getElementById("run-data").textContent);
          var total = Math.max(data.duration, 0.001);
          var critical = new Set(data.critical);

          function el(tag, attributes, children) {
            var node = document.createElement(tag);
            if (attributes) for (var key in attributes) {
              if (attributes[key] === null || attributes[key] === undefined) continue;
              if (key === "text") node.textContent = attributes[key];
              else if (key === "class") node.className = attributes[key];
              else node.setAttribute(key, attributes[key]);
            }
            (children || []).forEach(function (child) { if (child) node.appendChild(child); });
            return node;
          }
          function seconds(value) {
            if (value === null || value === undefined) return "";
            if (value < 1) return Math.round(value * 1000) + " ms";
            if (value < 60) return (Math.round(value * 100) / 100) + " s";
            var minutes = Math.floor(value / 60);
            return minutes + " min " + Math.round(value - minutes * 60) + " s";
          }
          function tickText(value, step) {
            if (step < 1) return Math.round(value * 1000) + " ms";
            if (step < 60) return Math.round(value) + " s";
            return Math.round(value / 60) + " min";
          }
          function latency(value) { return value < 0.01 ? (value * 1000).toFixed(2) + " ms" : seconds(value); }
          function percent(value) { return (Math.min(Math.max(value / total, 0), 1) * 100).toFixed(3) + "%"; }
          function pre(text) { return el("pre", { text: text }); }

          // Round tick spacing: about eight ticks across.
          var raw = total / 8, magnitude = Math.pow(10, Math.floor(Math.log10(raw))), tick = 10 * magnitude;
          [1, 2, 5, 10].some(function (factor) { if (raw <= factor * magnitude) { tick = factor * magnitude; return true; } return false; });
          document.documentElement.style.setProperty("--tick", (tick / total * 100) + "%");

          // Header.
          document.title = data.workflow + ": " + data.statusWords;
          var header = document.getElementById("header");
          header.appendChild(el("h1", null, [document.createTextNode(data.workflow + " "),
            el("span", { "class": "badge " + data.status, text: data.statusWords })]));
          var counts = {};
          data.steps.forEach(function (step) { counts[step.st] = (counts[step.st] || 0) + 1; });
          var notListed = 0;
          Object.keys(data.notListed || {}).forEach(function (s) { counts[s] = (counts[s] || 0) + data.notListed[s]; notListed += data.notListed[s]; });
          var countText = ["succeeded", "up-to-date", "failed", "cancelled", "skipped"].filter(function (s) { return counts[s]; })
            .map(function (s) { return counts[s] + " " + s; }).join(", ");
          header.appendChild(el("div", { "class": "meta", text: "started " + data.startedAt + " · wall " + seconds(data.duration)
            + " · " + (data.steps.length + notListed) + " steps" + (countText ? " · " + countText : "")
            + (notListed ? " · " + notListed + " runs of labels past their first 1,000 counted, not listed" : "") }));

          // A label's series over the run (a line), on labelled axes: time
          // across, and up its runs a second (`value` 0) or its p99 (2).
          function seriesChart(label, value) {
            var svgNS = "http://www.w3.org/2000/svg", width = 240, height = 36, axis = 14, points = label.series || [];
            var every = label.every || 1;
            var svg = document.createElementNS(svgNS, "svg");
            svg.setAttribute("class", "series");
            svg.setAttribute("width", width); svg.setAttribute("height", height + axis);
            svg.setAttribute("viewBox", "0 0 " + width + " " + (height + axis));
            var most = Math.max.apply(null, [value === 0 ? 1 : 1e-6].concat(points.map(function (p) { return p[value]; })));
            var step = points.length > 1 ? (width - 2) / (points.length - 1) : 0;
            var line = document.createElementNS(svgNS, "polyline");
            line.setAttribute("fill", "none"); line.setAttribute("stroke", "currentColor");
            line.setAttribute("points", points.map(function (p, i) {
              return (1 + i * step).toFixed(1) + "," + (height - 1 - p[value] / most * (height - 2)).toFixed(1);
            }).join(" "));
            svg.appendChild(line);
            var up = value === 0 ? "runs/s (most " + (most / every).toFixed(0) + ")" : "p99 (most " + latency(most) + ")";
            [[0, "start", "0 s"], [width / 2, "middle", "time → · ↑ " + up], [width, "end", points.length * every + " s"]].forEach(function (tick) {
              var t = document.createElementNS(svgNS, "text");
              t.setAttribute("class", "axis"); t.setAttribute("x", tick[0]); t.setAttribute("y", height + axis - 2);
              t.setAttribute("text-anchor", tick[1]); t.setAttribute("font-size", "9");
              t.textContent = tick[2];
              svg.appendChild(t);
            });
            return svg;
          }

          // Labels that ran more than once: their figures and how their
          // latencies spread (a bar per histogram bucket, on a log scale).
          if ((data.stats || []).length) {
            var statsSection = document.getElementById("stats");
            statsSection.appendChild(el("h2", { text: "Statistics" }));
            var head = el("tr", null, ["label", "runs", "ok", "failed", "rate/s", "min", "p50", "p90", "p99", "max", "latency distribution",
                                       "over time"]
              .map(function (name) { return el("th", { text: name }); }));
            var body = data.stats.map(function (label) {
              // The chart's bars above a labelled axis: latency on a log
              // scale (its lowest and highest bucket) across, runs up.
              var svgNS = "http://www.w3.org/2000/svg", width = 240, height = 36, axis = 14;
              var svg = document.createElementNS(svgNS, "svg");
              svg.setAttribute("class", "distribution");
              svg.setAttribute("width", width); svg.setAttribute("height", height + axis);
              svg.setAttribute("viewBox", "0 0 " + width + " " + (height + axis));
              function axisText(x, anchor, text) {
                var t = document.createElementNS(svgNS, "text");
                t.setAttribute("class", "axis"); t.setAttribute("x", x); t.setAttribute("y", height + axis - 2);
                t.setAttribute("text-anchor", anchor); t.setAttribute("font-size", "9");
                t.textContent = text;
                svg.appendChild(t);
              }
              var lows = label.buckets.map(function (b) { return Math.log(Math.max(b[0], 1)); });
              var lo = Math.min.apply(null, lows), hi = Math.max.apply(null, lows), most = Math.max.apply(null, label.buckets.map(function (b) { return b[1]; }));
              label.buckets.forEach(function (b, i) {
                var x = hi > lo ? (lows[i] - lo) / (hi - lo) * (width - 3) : width / 2, h = Math.max(1, b[1] / most * (height - 2));
                var bar = document.createElementNS(svgNS, "rect");
                bar.setAttribute("x", x.toFixed(1)); bar.setAttribute("y", (height - h).toFixed(1));
                bar.setAttribute("width", "3"); bar.setAttribute("height", h.toFixed(1));
                var tip = document.createElementNS(svgNS, "title");
                tip.textContent = b[1] + " from " + latency(b[0] / 1e6);
                bar.appendChild(tip);
                svg.appendChild(bar);
              });
              if (label.buckets.length) {
                axisText(0, "start", latency(label.buckets[0][0] / 1e6));
                axisText(width / 2, "middle", "latency (log) → · ↑ runs");
                axisText(width, "end", latency(label.buckets[label.buckets.length - 1][0] / 1e6));
              }
              var cells = [label.label, label.count, label.ok, label.failed, label.rate].map(function (v) { return el("td", { text: String(v) }); })
                .concat(label.p.map(function (v) { return el("td", { text: latency(v) }); }));
              var last = el("td"); last.appendChild(svg); cells.push(last);
              var overTime = el("td"); overTime.appendChild(seriesChart(label, 0)); overTime.appendChild(seriesChart(label, 2)); cells.push(overTime);
              return el("tr", null, cells);
            });
            statsSection.appendChild(el("table", { "class": "stats" }, [el("thead", null, [head]), el("tbody", null, body)]));
          }
          // Thresholds: each with what was measured, first: with
          // the failures that decided the run, they are the answer.
          if ((data.thresholds || []).length) {
            var thresholdSection = document.getElementById("failures");
            thresholdSection.appendChild(el("h2", { text: "Thresholds" }));
            var rows = data.thresholds.map(function (t) {
              return el("tr", { "class": t[2] ? "held" : "broken" }, [el("td", { text: t[0] }), el("td", { text: t[1] }),
                el("td", { text: t[2] ? "✓ held" : "✗ failed" }), el("td", { text: t[3] })]);
            });
            var thresholdHead = el("tr", null, ["group", "threshold", "result", "measured"].map(function (name) { return el("th", { text: name }); }));
            thresholdSection.appendChild(el("table", { "class": "stats thresholds" }, [el("thead", null, [thresholdHead]), el("tbody", null, rows)]));
          }

          // The failures that decided the run beside the thresholds, before
          // the statistics; those the workflow handled (no failure of the
          // run, so not counted as one) after them.
          [["Failures", data.failures.filter(function (failure) { return !failure.handledBy; }), "failures"],
           ["Handled failures", data.failures.filter(function (failure) { return failure.handledBy; }), "handled"]].forEach(function (part) {
            if (!part[1].length) return;
            var failures = document.getElementById(part[2]);
            failures.appendChild(el("h2", { text: part[0] + " (" + part[1].length + ")" }));
            part[1].forEach(function (failure) {
              var box = el("div", { "class": "failure", "data-failure": failure.id }, [
                el("h3", null, [document.createTextNode(failure.id + " "), el("small", { text: "(" + failure.kind + ", " + failure.failureKind + (failure.handledBy ? ", handled by " + failure.handledBy + ": not a failure of the run" : "") + ")" })]),
                pre(failure.message)]);
              if (failure.step !== undefined) appendOutput(box, data.steps[failure.step]);
              failures.appendChild(box);
            });
          });

          // The tree: groups hold their steps and groups, in workflow order.
          var groups = new Map();
          data.groups.forEach(function (group) { group.children = []; group.first = Infinity; groups.set(group.id, group); });
          var top = { children: [] };
          data.steps.forEach(function (step, index) {
            step.index = index;
            var parent = step.g !== undefined && groups.has(step.g) ? groups.get(step.g) : top;
            parent.children.push({ step: step, position: index });
            for (var up = step.g; up !== undefined && groups.has(up); up = groups.get(up).parent) {
              var group = groups.get(up);
              if (index < group.first) group.first = index;
            }
          });
          data.groups.forEach(function (group, index) {
            var parent = group.parent !== undefined && groups.has(group.parent) ? groups.get(group.parent) : top;
            var position = group.first === Infinity ? data.steps.length + index : group.first - 0.5;
            parent.children.push({ group: group, position: position });
          });
          function sortTree(node) {
            node.children.sort(function (a, b) { return a.position - b.position; });
            node.children.forEach(function (child) { if (child.group) sortTree(child.group); });
          }
          sortTree(top);

          function escapeHTML(text) {
            return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
          }
          function barHTML(start, duration, status, isCritical) {
            if (start === null || start === undefined) return "";
            return '<i class="bar ' + status + (isCritical ? " critical" : "") + '" style="left:' + percent(start)
              + ";width:" + percent(duration || 0) + '"></i>';
          }
          // Rows are made as one string and parsed once: 10,000 steps open in
          // about a second.
          function stepHTML(step, depth) {
            var id = escapeHTML(step.id);
            return '<details class="step" data-step="' + id + '" data-status="' + step.st + '" data-index="' + step.index
              + '" style="--depth:' + depth + '"><summary class="row" title="' + id + " · " + step.st + " · "
              + escapeHTML(data.summaries[step.s]) + '"><span class="label" title="' + id + '">' + id + '</span><span class="track">'
              + barHTML(step.t, step.d, step.st, critical.has(step.index)) + '</span><span class="dur">' + seconds(step.d)
              + '</span></summary><div class="info"></div></details>';
          }
          function fill(row) {
            if (row.getAttribute("data-filled")) return;
            row.setAttribute("data-filled", "true");
            stepDetails(row.querySelector(".info"), data.steps[Number(row.getAttribute("data-index"))]);
          }
          function stepDetails(info, step) {
            var facts = [["step", step.id], ["kind", step.k], ["what", data.summaries[step.s]],
              ["status", step.st + (step.hb ? " (handled by " + step.hb + ": not a failure of the run)" : "")]];
            if (step.t !== undefined) facts.push(["started", "+" + seconds(step.t)]);
            if (step.d !== undefined) facts.push(["took", seconds(step.d)]);
            if (step.a > 1) facts.push(["attempts", String(step.a)]);
            if (step.x !== undefined) facts.push(["exit", String(step.x)]);
            if (step.on !== undefined) facts.push(["ran on", step.on]);
            if (step.fr !== undefined) facts.push(["up to date", step.fr === "cache" ? "restored from the shared cache" : "from the local store"]);
            if (step.h !== undefined) facts.push(["HTTP status", String(step.h)]);
            if (step.g !== undefined) facts.push(["in", step.g]);
            var list = el("dl");
            facts.forEach(function (fact) { list.appendChild(el("dt", { text: fact[0] })); list.appendChild(el("dd", { text: fact[1] })); });
            info.appendChild(list);
            if (step.m !== undefined) { info.appendChild(el("div", { text: "message" })); info.appendChild(pre(step.m)); }
            if (step.e) { info.appendChild(el("div", { text: "error (" + step.e.kind + ")" })); info.appendChild(pre(step.e.message)); }
            if (step.tries) {
              var table = el("table", null, [el("tr", null, ["attempt", "started", "took", "ended", "why"].map(function (h) { return el("th", { text: h }); }))]);
              step.tries.forEach(function (attempt) {
                var why = attempt.e ? attempt.e.kind + ": " + attempt.e.message : (attempt.x !== undefined ? "exit " + attempt.x : "");
                table.appendChild(el("tr", null, [String(attempt.n), "+" + seconds(attempt.t), seconds(attempt.d), attempt.st, why]
                  .map(function (text) { return el("td", { text: text }); })));
                if (attempt.err) table.appendChild(el("tr", null, [el("td"), el("td", { colspan: "4" }, [pre(attempt.err)])]));
              });
              info.appendChild(table);
            }
            appendOutput(info, step);
          }
          function appendOutput(box, step) {
            if (!step) return;
            [["stderr", step.err, step.errCut], ["stdout", step.out, step.outCut]].forEach(function (stream) {
              if (!stream[1]) return;
              box.appendChild(el("div", { text: stream[0] + (stream[2] ? " (its end; the JSON report keeps more)" : "") }));
              box.appendChild(pre(stream[1]));
            });
          }
          function laneHTML(group, depth, out) {
            var open = group.kind !== "foreach";
            var steps = 0;
            (function count(node) { node.children.forEach(function (c) { if (c.step) steps++; else count(c.group); }); })(group);
            var title = group.id + " · " + group.kind + " · " + group.st + (group.e ? " · " + group.e.kind + ": " + group.e.message : "");
            var note = group.kind + " · " + steps + (steps === 1 ? " step" : " steps") + (group.st === "failed" || group.st === "cancelled" ? " · " + group.st : "");
            out.push('<details class="lane" data-group="' + escapeHTML(group.id) + '" data-kind="' + group.kind + '" data-status="' + group.st
              + '" style="--depth:' + depth + '"' + (open ? " open" : "") + '><summary class="row" title="' + escapeHTML(title)
              + '"><span class="label" title="' + escapeHTML(group.id) + '">' + escapeHTML(group.label || group.id) + " <small>"
              + escapeHTML(note) + '</small></span><span class="track">' + barHTML(group.t, group.d, group.st, false)
              + '</span><span class="dur">' + seconds(group.d) + "</span></summary>");
            if (group.e) {
              out.push('<div class="info"><div>error (' + escapeHTML(group.e.kind) + ")</div><pre>" + escapeHTML(group.e.message) + "</pre></div>");
            }
          }
          var inOrder = [];
          function render(child, depth, out) {
            inOrder.push(child);
            if (child.step) {
              out.push(stepHTML(child.step, depth));
              return;
            }
            laneHTML(child.group, depth, out);
            child.group.children.forEach(function (grandchild) { render(grandchild, depth + 1, out); });
            out.push("</details>");
          }

          var timeline = document.getElementById("timeline");
          var axis = el("div", { "class": "axis" }, [el("span"), el("span", { "class": "track" }), el("span")]);
          var axisTrack = axis.children[1];
          // Ticks at round values; the end of the run labelled with its
          // length unless a tick falls on it (a tick too close to it is dropped).
          var ticks = Math.floor(total / tick + 1e-9);
          var endsOnTick = total / tick - ticks < 0.001;
          for (var i = 0; i <= ticks; i++) {
            var at = i * tick;
            var position = at / total;
            if (i > 0 && !endsOnTick && position > 0.88) continue;
            var cls = "tick" + (i === 0 ? " first" : "") + (i > 0 && position > 0.94 ? " last" : "");
            axisTrack.appendChild(el("span", { "class": cls, style: "left:" + (position * 100).toFixed(3) + "%", text: tickText(at, tick) }));
          }
          if (!endsOnTick) {
            axisTrack.appendChild(el("span", { "class": "tick last", style: "left:100%", text: seconds(total) }));
          }
          timeline.appendChild(axis);
          var out = [];
          top.children.forEach(function (child) { render(child, 0, out); });
          timeline.insertAdjacentHTML("beforeend", out.join(""));
          var made = timeline.querySelectorAll("details");
          inOrder.forEach(function (child, index) { child.element = made[index]; });
          // A step's details are made when it is opened; a failed step's now.
          inOrder.forEach(function (child) { if (child.step && child.step.st === "failed") fill(child.element); });
          timeline.addEventListener("toggle", function (event) {
            var row = event.target;
            if (row.classList && row.classList.contains("step") && row.open) fill(row);
          }, true);
          if (!data.steps.length) timeline.appendChild(el("div", { "class": "empty", text: "No steps." }));

          // Status filter and label search.
          var statuses = ["succeeded", "up-to-date", "failed", "cancelled", "skipped"];
          var toolbar = document.getElementById("toolbar");
          var shown = new Set(statuses);
          statuses.forEach(function (status) {
            var box = el("input", { type: "checkbox", "data-filter": status });
            box.checked = true;
            box.addEventListener("change", function () { if (box.checked) shown.add(status); else shown.delete(status); apply(); });
            toolbar.appendChild(el("label", { "class": status }, [box, el("i", { "class": "swatch" }), document.createTextNode(status + " (" + (counts[status] || 0) + ")")]));
          });
          var search = el("input", { type: "search", placeholder: "Search steps by label", "aria-label": "Search steps by label" });
          search.addEventListener("input", apply);
          toolbar.appendChild(search);
          var legend = el("span", { "class": "meta" }, [el("i", { "class": "swatch", style: "--c:#fff;outline:2px solid var(--run)" }), document.createTextNode("critical path")]);
          toolbar.appendChild(legend);
          function apply() {
            var needle = search.value.trim().toLowerCase();
            (function visit(node) {
              var any = false;
              node.children.forEach(function (child) {
                var visible;
                if (child.step) {
                  visible = shown.has(child.step.st) && (!needle || child.step.id.toLowerCase().indexOf(needle) >= 0);
                } else {
                  var group = child.group;
                  var inside = visit(group);
                  var matches = needle ? group.id.toLowerCase().indexOf(needle) >= 0 : !!group.e;
                  visible = inside || (matches && shown.has(group.st));
                  if (needle && inside) child.element.open = true;
                }
                child.element.hidden = !visible;
                any = any || visible;
              });
              return any;
            })(top);
          }
          // The filter lives in the address too (#status=failed,cancelled&q=lint),
          // so a link can open the page filtered.
          function readHash() {
            var parameters = new URLSearchParams(location.hash.slice(1));
            if (parameters.has("status")) {
              var wanted = parameters.get("status").split(",");
              shown = new Set(statuses.filter(function (s) { return wanted.indexOf(s) >= 0; }));
              toolbar.querySelectorAll("input[data-filter]").forEach(function (box) { box.checked = shown.has(box.getAttribute("data-filter")); });
            }
            if (parameters.has("q")) search.value = parameters.get("q");
            apply();
          }
          function writeHash() {
            var parts = [];
            if (shown.size !== statuses.length) parts.push("status=" + statuses.filter(function (s) { return shown.has(s); }).join(","));
            if (search.value.trim()) parts.push("q=" + encodeURIComponent(search.value.trim()));
            history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname + location.search);
          }
          toolbar.addEventListener("change", writeHash);
          search.addEventListener("input", writeHash);
          if (location.hash.length > 1) readHash();
          document.documentElement.setAttribute("data-ready", "true");
          window.addEventListener("load", function () {
            document.documentElement.setAttribute("data-load-ms", String(Math.round(performance.now())));
          });
        })();
        """#
}
