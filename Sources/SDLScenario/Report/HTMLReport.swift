import Foundation
public import SmartDeviceLink

/// `--html FILE`: one self-contained page per run (no network, no CDN), readable offline and
/// attachable to a CI job. Each scenario is a sequence chart: the app (each app, in a
/// scenario with several) and the head unit as lifelines, every request, response and
/// notification as an arrow in the order it happened with its time, each step beside the
/// arrows it caused, the failed step in red with what it expected and what came. A click on
/// an arrow shows the message as JSON.
///
/// The page carries the run as the `--json` document and draws it with a little plain
/// JavaScript, so the file is the data and the picture at once.
public enum HTMLReportWriter {
    /// The page for these results.
    public static func document(_ results: [ScenarioResult]) -> String {
        document(run: JSONResultWriter.document(results, fineTimes: true),
                 title: results.count == 1 ? results[0].name : "\(results.count) scenarios", summary: results.summaryLine)
    }

    /// `sdl-run compare --html`: each scenario's two runs side by side, the differences listed
    /// above them and their steps marked yellow in both charts.
    public static func document(comparisons: [ScenarioComparison]) -> String {
        var scenarios: [JSONValue] = []
        for comparison in comparisons {
            let differing = JSONValue.array(Array(Set(comparison.differences.map(\.step))).sorted().map(JSONValue.string))
            let lines = JSONValue.array(comparison.differences.map { .string("\($0.step) \($0.summary): \($0.detail)") })
            for (side, result) in [comparison.left, comparison.right].enumerated() {
                guard case .object(var scenario)? = JSONResultWriter.document([result], fineTimes: true)["scenarios"]?.arrayValue?.first else { continue }
                scenario["differingSteps"] = differing
                if side == 0 { scenario["differences"] = lines }
                scenarios.append(.object(scenario))
            }
        }
        let differing = comparisons.filter { !$0.differences.isEmpty }.count
        return document(run: ["scenarios": .array(scenarios)], title: "compare",
                        summary: "\(comparisons.count) scenario\(comparisons.count == 1 ? "" : "s") compared: "
                            + "\(comparisons.count - differing) the same, \(differing) different", columns: true)
    }

    /// The page of a run given as the `--json` document (or one made from a trace).
    public static func document(run: JSONValue, title: String, summary: String, columns: Bool = false) -> String {
        // Inside <script> only "</" could end the element early.
        let data = run.serialized().replacingOccurrences(of: "</", with: "<\\/")
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <title>\(escaped(title)) — sdl-run</title>
        <style>\(style)</style></head>
        <body><h1>\(escaped(title))</h1><p class="summary">\(escaped(summary))</p>
        <div id="scenarios"\(columns ? " class=\"columns\"" : "")></div>
        <aside id="details" hidden><button id="close">×</button><pre id="message"></pre></aside>
        <script type="application/json" id="run">\(data)</script>
        <script>\(script)</script>
        </body></html>

        """
    }

    /// Writes the page for these results to `path`.
    public static func write(_ results: [ScenarioResult], to path: String) throws {
        try Data(document(results).utf8).write(to: URL(fileURLWithPath: path))
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let style = """
    body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}h2{margin:1.5em 0 .3em}
    .passed{color:#1a7f37}.failed{color:#cf222e}.verdict{font-weight:600}
    svg{display:block;max-width:100%}.lifeline{stroke:#888;stroke-dasharray:4 3}
    .arrow line{stroke:#555;stroke-width:1.4}.arrow text{font-size:12px}.arrow{cursor:pointer}
    .arrow.response line{stroke-dasharray:5 3}.arrow:hover text{font-weight:600}
    .arrow.notification line{stroke:#0969da}.arrow.error text{fill:#cf222e}.arrow.control line{stroke:#8250df}
    .arrow.secondary line{stroke:#bf8700;stroke-width:2.4}.arrow.hmi line{stroke:#57606a;stroke-dasharray:2 2}
    .step text{font-size:12px;fill:#444}a.file text{font-size:12px;fill:#0969da;text-decoration:underline}.step.failed rect{fill:#ffebe9}.step.failed text{fill:#cf222e}
    .time{font-size:11px;fill:#888}.actor{font-weight:600}
    .failure{background:#ffebe9;border-left:4px solid #cf222e;padding:.5em 1em;white-space:pre-wrap}
    .columns{display:grid;grid-template-columns:1fr 1fr;gap:0 2em}.differences,.spec{background:#fff8c5;padding:.5em 1em;white-space:pre-wrap}
    .step.differs rect{fill:#fff8c5}
    #details{position:fixed;right:1em;top:1em;bottom:1em;width:min(40em,45%);overflow:auto;background:#f6f8fa;
    border:1px solid #ccc;padding:.5em 1em}#close{float:right}
    """

    /// Draws each scenario of the embedded run: lifelines, arrows in time order, step bands.
    static let script = #"""
    const run = JSON.parse(document.getElementById('run').textContent);
    const NS = 'http://www.w3.org/2000/svg';
    function el(name, attrs, text) {
      const node = document.createElementNS(NS, name);
      for (const key in attrs) node.setAttribute(key, attrs[key]);
      if (text !== undefined) node.textContent = text;
      return node;
    }
    function show(message) {
      document.getElementById('message').textContent = JSON.stringify(message, null, 2);
      document.getElementById('details').hidden = false;
    }
    document.getElementById('close').onclick = () => { document.getElementById('details').hidden = true; };
    for (const scenario of run.scenarios) {
      const section = document.createElement('section');
      section.className = 'scenario';
      const heading = document.createElement('h2');
      heading.append(scenario.name + ' ');
      const verdict = document.createElement('span');
      verdict.className = 'verdict ' + (scenario.status === 'passed' ? 'passed' : scenario.status === 'traced' ? '' : 'failed');
      verdict.textContent = scenario.status.toUpperCase() + ' in ' + Math.round(scenario.durationMS) + ' ms on ' + scenario.target;
      heading.append(verdict);
      section.append(heading);
      if (scenario.differences) {
        const box = document.createElement('div');
        box.className = 'differences';
        box.textContent = scenario.differences.length ? scenario.differences.join('\n') : 'no difference';
        section.append(box);
      }
      if (scenario.specViolations) {
        const box = document.createElement('div');
        box.className = 'spec';
        box.textContent = 'The head unit broke the RPC spec ' + scenario.specViolations.length + ' times:\n'
          + scenario.specViolations.map(v => v.function + ' ' + v.type + ': ' + v.problem).join('\n');
        section.append(box);
      }
      const failedStep = scenario.steps.find(step => step.status === 'failed');
      if (failedStep || scenario.message) {
        const box = document.createElement('div');
        box.className = 'failure';
        box.textContent = failedStep ? failedStep.path + ' ' + failedStep.summary + '\n' + (failedStep.message || '') : scenario.message;
        section.append(box);
      }
      const events = [];
      const link = message => message.link && message.link !== 'primary' ? ' secondary' : '';
      for (const sent of scenario.sent) events.push({time: sent.timeMS, fromApp: true, kind: (sent.type === 'control' ? 'control' : 'request') + link(sent),
                                                     name: sent.function, function: sent.function, message: sent});
      for (const got of scenario.received) {
        const failed = got.type === 'response' && got.parameters && got.parameters.success === false;
        events.push({time: got.timeMS, fromApp: false, kind: got.type + (failed ? ' error' : '') + link(got), function: got.function,
                     name: got.function + (got.parameters && got.parameters.resultCode ? ' ' + got.parameters.resultCode : ''), message: got});
      }
      // With the HMI's side (--hmi, or the emulator's own HMI), a third lifeline.
      for (const hmi of scenario.hmi || []) events.push({time: hmi.timeMS, toHMI: true, kind: 'hmi', name: hmi.function, function: hmi.function, message: hmi});
      events.sort((a, b) => a.time - b.time);
      // A lifeline per app in a scenario with several (each message names its app).
      const apps = [...new Set(scenario.sent.concat(scenario.received).map(m => m.app).filter(a => a))];
      const lanes = apps.length ? apps : ['app'], laneGap = 130, spread = (lanes.length - 1) * laneGap;
      const row = 22, top = 40, left = 260, width = (scenario.hmi ? 980 : 760) + spread, app = left + 60;
      const appX = name => app + Math.max(0, lanes.indexOf(name)) * laneGap;
      const unit = scenario.hmi ? left + 600 + spread : left + width - 60, hmiX = left + width - 60;
      const height = top + (events.length + scenario.steps.length + 2) * row;
      const svg = el('svg', {width: left + width, height: height, viewBox: '0 0 ' + (left + width) + ' ' + height});
      for (const lane of lanes) {
        svg.append(el('text', {x: appX(lane), y: 20, 'text-anchor': 'middle', class: 'actor'}, lane));
        svg.append(el('line', {x1: appX(lane), y1: 28, x2: appX(lane), y2: height, class: 'lifeline'}));
      }
      svg.append(el('text', {x: unit, y: 20, 'text-anchor': 'middle', class: 'actor'}, 'head unit'));
      svg.append(el('line', {x1: unit, y1: 28, x2: unit, y2: height, class: 'lifeline'}));
      if (scenario.hmi) {
        svg.append(el('text', {x: hmiX, y: 20, 'text-anchor': 'middle', class: 'actor'}, 'HMI'));
        svg.append(el('line', {x1: hmiX, y1: 28, x2: hmiX, y2: height, class: 'lifeline'}));
      }
      let y = top, next = 0;
      // A run of messages that repeats a cycle of one to four functions four times or more
      // (PutFile chunks and their answers, recording chunks, a Show and its UI.Show) is one
      // bar: long runs stay readable and quick to draw.
      function cycleEnd(period, until) {
        const same = at => events[at].function === events[next + (at - next) % period].function;
        let end = next;
        while (end < events.length && events[end].time < until && same(end)) end++;
        return next + Math.floor((end - next) / period) * period;  // whole cycles only
      }
      function fold(until) {
        let end = next;
        for (let period = 1; period <= 4; period++) {
          const candidate = cycleEnd(period, until);
          if ((candidate - next) / period >= 4 && candidate > end) end = candidate;
        }
        // A burst of the same few functions whose order wavers (answers and the HMI's
        // messages overtaking each other): twelve or more messages of at most three functions.
        const seen = new Set();
        let burst = next;
        while (burst < events.length && events[burst].time < until && (seen.add(events[burst].function), seen.size <= 3)) burst++;
        if (burst - next >= 12 && burst > end) end = burst;
        if (end === next) return false;
        const run = events.slice(next, end);
        next = end;
        const bytes = run.reduce((sum, e) => sum + ((e.message.parameters || {}).length || e.message.bulkBytes || 0), 0);
        const span = run[run.length - 1].time - run[0].time;
        const names = [...new Set(run.map(e => e.function))].join(', ');
        const label = names + ' ×' + run.length + ' (' + run.filter(e => e.fromApp).length + ' sent, '
          + run.filter(e => !e.fromApp && !e.toHMI).length + ' received' + (run.some(e => e.toHMI) ? ', ' + run.filter(e => e.toHMI).length + ' to the HMI' : '')
          + (bytes ? ', ' + bytes + ' bytes'
          + (span > 0 ? ', ' + (bytes / span / 1000).toFixed(2) + ' MB/s' : '') : '') + ')';
        const bar = el('g', {class: 'arrow fold', 'data-count': run.length});
        const [x1, x2] = run.every(e => e.toHMI) ? [unit, hmiX] : [app, run.some(e => e.toHMI) ? hmiX : unit];
        bar.append(el('rect', {x: x1, y: y - 9, width: x2 - x1, height: 12, fill: '#ddf4ff', stroke: '#0969da'}));
        bar.append(el('text', {x: (x1 + x2) / 2, y: y + 1, 'text-anchor': 'middle'}, label));
        bar.append(el('text', {x: left - 8, y: y, 'text-anchor': 'end', class: 'time'}, run[0].time.toFixed(1) + '–' + run[run.length - 1].time.toFixed(1) + ' ms'));
        bar.onclick = () => show({folded: run.length, first: run[0].message, last: run[run.length - 1].message});
        svg.append(bar);
        y += row;
        return true;
      }
      function arrows(until) {
        while (next < events.length && events[next].time < until) {
          if (fold(until)) continue;
          const event = events[next++];
          const arrow = el('g', {class: 'arrow ' + event.kind});
          const lane = appX(event.message.app);
          const [from, to] = event.toHMI ? [unit, hmiX] : event.fromApp ? [lane, unit] : [unit, lane];
          // The whole row takes the click, not only the thin line and its label.
          arrow.append(el('rect', {x: Math.min(from, to), y: y - row + 6, width: Math.abs(to - from), height: row, fill: 'transparent'}));
          arrow.append(el('line', {x1: from, y1: y, x2: to, y2: y, 'marker-end': 'url(#head)'}));
          arrow.append(el('text', {x: (from + to) / 2, y: y - 4, 'text-anchor': 'middle'}, event.name));
          arrow.append(el('text', {x: left - 8, y: y, 'text-anchor': 'end', class: 'time'}, event.time.toFixed(1) + ' ms'));
          arrow.onclick = () => show(event.message);
          svg.append(arrow);
          y += row;
        }
      }
      // What came before the first step: the registration.
      const first = scenario.steps.length ? scenario.steps[0].startMS : Infinity;
      if (events.length && events[0].time < first) {
        svg.append(el('text', {x: 4, y: y, class: 'time'}, 'registration'));
        y += row;
        arrows(first);
      }
      const steps = scenario.steps;
      for (let index = 0; index < steps.length;) {
        const step = steps[index];
        // A repeated step (the same summary and verdict, four times or more) is one band.
        let last = index;
        while (last + 1 < steps.length && steps[last + 1].summary === step.summary && steps[last + 1].status === step.status) last++;
        if (last - index < 3) last = index;
        const end = last + 1 < steps.length ? steps[last + 1].startMS : Infinity;
        const differs = (scenario.differingSteps || []).includes(step.path) ? ' differs' : '';
        const band = el('g', {class: 'step ' + step.status + differs, 'data-path': step.path, 'data-count': last - index + 1});
        band.append(el('rect', {x: 0, y: y - row + 6, width: left + width, height: row, fill: 'transparent'}));
        band.append(el('text', {x: 4, y: y}, (step.status === 'failed' ? '✘ ' : step.status === 'skipped' ? '– ' : '✔ ')
          + step.summary + (last > index ? ' ×' + (last - index + 1) : '')));
        svg.append(band);
        y += row;
        // What a step recorded or wrote (a stream the head unit recorded, an audio pass-thru
        // WAV), as a link the browser opens beside the page.
        for (const [path] of (step.output || '').matchAll(/\/\S+\.(?:h264|wav|pcm|jpg|png)/g)) {
          const link = el('a', {href: 'file://' + path, class: 'file'});
          link.append(el('text', {x: 24, y: y}, '↳ ' + path.split('/').pop()));
          svg.append(link);
          y += row;
        }
        arrows(end);
        index = last + 1;
      }
      arrows(Infinity);
      const defs = el('defs', {});
      const marker = el('marker', {id: 'head', markerWidth: 8, markerHeight: 8, refX: 7, refY: 4, orient: 'auto', markerUnits: 'userSpaceOnUse'});
      marker.append(el('path', {d: 'M0,0 L8,4 L0,8 z', fill: '#555'}));
      defs.append(marker);
      svg.prepend(defs);
      svg.setAttribute('height', y + row);
      svg.setAttribute('viewBox', '0 0 ' + (left + width) + ' ' + (y + row));
      section.append(svg);
      document.getElementById('scenarios').append(section);
    }
    document.body.dataset.renderMs = performance.now().toFixed(0);
    """#
}
