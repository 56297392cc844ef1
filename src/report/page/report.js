// The script of a memstand report page (src/report/html_report.cc inlines it after
// uPlot): draws each chart of the JSON in #memstand-charts with uPlot, then says in
// #memstand-status how many were drawn. A chart counts as drawn when its canvas holds
// pixels of a series' colour (checked after uPlot's draw), so a blank chart is seen.
// docs/report.md describes the chart JSON.
(function () {
  'use strict';
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
                 '#17becf', '#bcbd22', '#7f7f7f'];
  var status = document.getElementById('memstand-status');
  var specs = JSON.parse(document.getElementById('memstand-charts').textContent);
  var rendered = 0;
  var drawn = 0;

  function axisName(a) { return a.unit ? a.label + ' (' + a.unit + ')' : a.label; }

  function rgb(hex) {
    return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
  }

  // True when the canvas holds an opaque pixel close to one of the series' colours.
  function inked(canvas, colours) {
    var data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    var targets = colours.map(rgb);
    for (var i = 0; i < data.length; i += 4) {
      if (data[i + 3] < 160) continue;
      for (var t = 0; t < targets.length; t++) {
        var d = Math.abs(data[i] - targets[t][0]) + Math.abs(data[i + 1] - targets[t][1]) +
                Math.abs(data[i + 2] - targets[t][2]);
        if (d < 40) return true;
      }
    }
    return false;
  }

  function report() {
    status.dataset.rendered = String(rendered);
    status.dataset.drawn = String(drawn);
    status.dataset.done = rendered === specs.length ? '1' : '0';
    status.textContent = 'charts drawn: ' + drawn + ' of ' + specs.length;
  }

  // The data range widened to the reference lines, so a quota or a median off the data
  // is still on the chart.
  function rangeWith(lines, log) {
    return function (u, min, max) {
      lines.forEach(function (l) {
        if (!log || l.at > 0) { min = min == null ? l.at : Math.min(min, l.at); max = max == null ? l.at : Math.max(max, l.at); }
      });
      if (min == null) return [log ? 1 : 0, log ? 10 : 1];
      return log ? uPlot.rangeLog(min, max, 10, true) : uPlot.rangeNum(min, max, 0.1, true);
    };
  }

  function label(ctx, text, x, y) {
    ctx.save();
    ctx.font = '12px sans-serif';
    ctx.fillStyle = '#333';
    ctx.fillText(text, x, y);
    ctx.restore();
  }

  // Shaded bands before the series, reference lines after them.
  function decorations(spec) {
    var ratio = window.devicePixelRatio || 1;
    return {
      hooks: {
        drawClear: [function (u) {
          var ctx = u.ctx;
          spec.bands.forEach(function (b) {
            var x0 = u.valToPos(b.from, 'x', true);
            var x1 = u.valToPos(b.to, 'x', true);
            ctx.save();
            ctx.fillStyle = 'rgba(255, 190, 0, 0.18)';
            ctx.fillRect(Math.min(x0, x1), u.bbox.top, Math.max(Math.abs(x1 - x0), 2 * ratio), u.bbox.height);
            ctx.restore();
            label(ctx, b.label, Math.min(x0, x1) + 4 * ratio, u.bbox.top + 14 * ratio);
          });
        }],
        draw: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#444';
          ctx.setLineDash([6 * ratio, 4 * ratio]);
          ctx.lineWidth = ratio;
          spec.x_lines.forEach(function (l, i) {
            var x = u.valToPos(l.at, 'x', true);
            ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
            label(ctx, l.label, x + 4 * ratio, u.bbox.top + (30 + 14 * i) * ratio);
          });
          spec.y_lines.forEach(function (l) {
            var y = u.valToPos(l.at, 'y', true);
            ctx.beginPath(); ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y); ctx.stroke();
            label(ctx, l.label, u.bbox.left + u.bbox.width - 160 * ratio, y - 4 * ratio);
          });
          ctx.restore();
        }],
      },
    };
  }

  function options(spec, width) {
    var ticks = spec.x.ticks;
    // A line chart of few x values shows its points too: a series of one value draws no
    // line (seen with 1 s runs), and uPlot's automatic points do not show it either.
    var points = spec.style !== 'line' || spec.data[0].length <= 100;
    var line = spec.style !== 'points';
    var series = [{ label: axisName(spec.x), value: ticks ? function (u, v) { return v == null ? '' : ticks[v]; } : undefined }];
    var colours = [];
    spec.series.forEach(function (name, i) {
      var colour = PALETTE[i % PALETTE.length];
      colours.push(colour);
      series.push({
        // "segments": a gap (null) ends a segment, as in a timeline of intervals.
        label: name, stroke: colour, width: spec.style === 'segments' ? 6 : 2, spanGaps: spec.style !== 'segments',
        paths: line ? undefined : function () { return null; },
        points: { show: points ? true : undefined, size: 8, stroke: colour, fill: colour },
      });
    });
    var x = { time: false };
    if (spec.x.log) { x.distr = 3; x.log = 10; }
    if (ticks) x.range = [-0.5, ticks.length - 0.5];
    else if (spec.x.integer) x.range = function (u, min, max) { return [min - 0.5, max + 0.5]; };
    var yTicks = spec.y.ticks;
    var y = { range: yTicks ? [-0.5, yTicks.length - 0.5] : rangeWith(spec.y_lines, spec.y.log) };
    if (spec.y.log) { y.distr = 3; y.log = 10; }
    var yAxis = { label: axisName(spec.y), size: 70 };
    if (yTicks) {
      yAxis.splits = function () { return yTicks.map(function (t, i) { return i; }); };
      yAxis.values = function (u, splits) { return splits.map(function (v) { return yTicks[v] || ''; }); };
      yAxis.size = 190;
    }
    var xAxis = { label: axisName(spec.x) };
    if (spec.x.integer) xAxis.incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
    if (ticks) {
      xAxis.splits = function () { return ticks.map(function (t, i) { return i; }); };
      xAxis.values = function (u, splits) { return splits.map(function (v) { return ticks[v] || ''; }); };
      xAxis.size = 60;
    }
    return {
      opts: {
        title: spec.title, width: width, height: 320, series: series, scales: { x: x, y: y },
        axes: [xAxis, yAxis],
        plugins: [decorations(spec)],
      },
      colours: colours,
    };
  }

  function render(spec) {
    var el = document.getElementById('chart-' + spec.id);
    var width = Math.max(480, Math.min(1100, el.clientWidth || 900));
    var o = options(spec, width);
    var checked = false;
    o.opts.hooks = {
      draw: [function (u) {
        if (checked) return;
        checked = true;
        if (inked(u.ctx.canvas, o.colours)) drawn++;
        else el.dataset.blank = '1';
        el.dataset.drawn = '1';
        report();
      }],
    };
    var plot = new uPlot(o.opts, spec.data, el);
    rendered++;
    return plot;
  }

  specs.forEach(function (spec) {
    try {
      render(spec);
    } catch (e) {
      window.memstandErrors.push('chart ' + spec.id + ': ' + e);
      document.getElementById('memstand-errors').textContent = window.memstandErrors.join('\n');
    }
  });
  report();
})();
