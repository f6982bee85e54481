// Draws the charts whose data htmlreport put in #charts, one uPlot each,
// sized to its container. After drawing, a chart's element carries
// data-drawn, data-points (points per series) and data-colors, which the
// browser test reads.
(function () {
  "use strict";
  var WARMUP = "rgba(255, 214, 102, 0.35)";

  // nines turns k = -log10(1 - q) into a percentile label: 2 -> "99%".
  function nines(k) {
    if (k == null) return "";
    var p = 100 * (1 - Math.pow(10, -k));
    var digits = Math.max(0, Math.ceil(k - 2 - 1e-9));
    return p.toFixed(digits) + "%";
  }

  function num(v) {
    if (v == null) return "";
    var a = Math.abs(v);
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
    return +v.toPrecision(a < 0.01 ? 2 : 4) + "";
  }

  function shadeWarmup(u) {
    var min = u.scales.x.min, max = u.scales.x.max;
    if (min == null || min >= 0) return;
    var ctx = u.ctx;
    var left = u.valToPos(min, "x", true);
    var right = u.valToPos(Math.min(0, max), "x", true);
    ctx.save();
    ctx.fillStyle = WARMUP;
    ctx.fillRect(left, u.bbox.top, right - left, u.bbox.height);
    ctx.fillStyle = "#8a6d00";
    ctx.font = Math.round(11 * devicePixelRatio) + "px sans-serif";
    ctx.fillText("warmup", left + 4 * devicePixelRatio, u.bbox.top + 14 * devicePixelRatio);
    ctx.restore();
  }

  // clampY is the canvas y of value v on the y scale, kept inside the plot
  // (a log scale cannot place a bound at or below 0: it goes to the bottom).
  function clampY(u, v) {
    var top = u.bbox.top, bottom = u.bbox.top + u.bbox.height;
    if (v == null || (u.scales.y.distr === 3 && v <= 0)) return bottom;
    return Math.min(bottom, Math.max(top, u.valToPos(v, "y", true)));
  }

  function clampX(u, v) {
    var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
    return Math.min(right, Math.max(left, u.valToPos(v, "x", true)));
  }

  // drawBands shades each band (a confidence interval over a window) in its
  // colour, translucent, under the series; el.dataset.bands counts those
  // that cover a visible area.
  function drawBands(el, bands) {
    return function (u) {
      var ctx = u.ctx, n = 0;
      ctx.save();
      bands.forEach(function (b) {
        var x0 = clampX(u, b.xy[0]), x1 = clampX(u, b.xy[1]);
        var y0 = clampY(u, b.xy[3]), y1 = clampY(u, b.xy[2]);
        ctx.globalAlpha = 0.18;
        ctx.fillStyle = b.color;
        ctx.fillRect(x0, y0, x1 - x0, Math.max(y1 - y0, devicePixelRatio));
        ctx.globalAlpha = 0.6;
        ctx.strokeStyle = b.color;
        ctx.setLineDash([3 * devicePixelRatio, 3 * devicePixelRatio]);
        ctx.strokeRect(x0, y0, x1 - x0, Math.max(y1 - y0, devicePixelRatio));
        if (x1 > x0) n++;
      });
      ctx.restore();
      el.dataset.bands = String(n);
    };
  }

  // drawBars draws each error bar: a vertical line with caps from lo to hi
  // at x and, when given, a horizontal one from xlo to xhi at y;
  // el.dataset.bars counts those drawn inside the plot.
  function drawBars(el, bars) {
    return function (u) {
      var ctx = u.ctx, n = 0, cap = 4 * devicePixelRatio;
      ctx.save();
      ctx.lineWidth = 1.5 * devicePixelRatio;
      bars.forEach(function (b) {
        var v = b.v;
        if (v[0] == null || v[2] == null || v[3] == null) return;
        var x = u.valToPos(v[0], "x", true);
        if (x < u.bbox.left - 1 || x > u.bbox.left + u.bbox.width + 1) return;
        var lo = clampY(u, v[2]), hi = clampY(u, v[3]);
        ctx.strokeStyle = b.color;
        ctx.beginPath();
        ctx.moveTo(x, lo); ctx.lineTo(x, hi);
        ctx.moveTo(x - cap, lo); ctx.lineTo(x + cap, lo);
        ctx.moveTo(x - cap, hi); ctx.lineTo(x + cap, hi);
        if (v[4] != null && v[5] != null && v[1] != null) {
          var y = clampY(u, v[1]), xl = clampX(u, v[4]), xh = clampX(u, v[5]);
          ctx.moveTo(xl, y); ctx.lineTo(xh, y);
          ctx.moveTo(xl, y - cap); ctx.lineTo(xl, y + cap);
          ctx.moveTo(xh, y - cap); ctx.lineTo(xh, y + cap);
        }
        ctx.stroke();
        n++;
      });
      ctx.restore();
      el.dataset.bars = String(n);
    };
  }

  // padded widens a scatter's x range by 5% so the end points are not cut.
  function padded(u, min, max) {
    var d = max > min ? (max - min) * 0.05 : Math.abs(max) * 0.1 || 1;
    return [min - d, max + d];
  }

  function report(el) {
    return function (u) {
      var counts = [];
      for (var i = 1; i < u.data.length; i++) {
        var n = 0;
        for (var j = 0; j < u.data[i].length; j++) if (u.data[i][j] != null) n++;
        counts.push(n);
      }
      el.dataset.points = JSON.stringify(counts);
      el.dataset.drawn = "1";
    };
  }

  function size(el) {
    var w = Math.max(240, Math.floor(el.clientWidth));
    return { width: w, height: Math.round(Math.min(340, Math.max(220, w * 0.55))) };
  }

  function make(c) {
    var el = document.getElementById(c.id);
    if (!el) return;
    var xaxis = { label: c.xlabel, values: function (u, vals) { return vals.map(num); } };
    var xseries = { label: c.xlabel, value: function (u, v) { return num(v); } };
    if (c.xfmt === "nines") {
      xaxis.values = function (u, vals) { return vals.map(nines); };
      xaxis.splits = function (u) {
        // Whole nines; every other one when the chart is narrow (phones).
        var step = u.bbox.width / devicePixelRatio < 400 ? 2 : 1;
        var out = [];
        for (var k = 0; k <= u.scales.x.max + 1e-9; k += step) out.push(k);
        return out;
      };
      xseries.value = function (u, v) { return nines(v); };
    }
    var s = size(el);
    var opts = {
      title: c.title, width: s.width, height: s.height,
      scales: {
        x: { time: false, distr: c.xlog ? 3 : 1, range: c.points ? padded : undefined },
        y: { distr: c.ylog ? 3 : 1 }
      },
      axes: [xaxis, { label: c.ylabel, size: 60, values: function (u, vals) { return vals.map(num); } }],
      series: [xseries].concat(c.series.map(function (d) {
        return {
          label: d.label, stroke: d.color, width: 2, dash: d.dash ? [6, 4] : undefined,
          spanGaps: true, points: { show: c.points, size: 7, fill: d.color },
          value: function (u, v) { return num(v); }
        };
      })),
      legend: { live: true },
      hooks: {
        drawClear: (c.warmup ? [shadeWarmup] : []).concat(c.bands ? [drawBands(el, c.bands)] : []),
        draw: (c.bars ? [drawBars(el, c.bars)] : []).concat([report(el)])
      }
    };
    el.dataset.colors = JSON.stringify(c.series.map(function (d) { return d.color; }));
    var u = new uPlot(opts, [c.x].concat(c.series.map(function (d) { return d.y; })), el);
    if (window.ResizeObserver) {
      var last = s.width;
      new ResizeObserver(function () {
        var n = size(el);
        if (n.width !== last) {
          last = n.width;
          u.setSize(n);
        }
      }).observe(el);
    }
  }

  var charts = JSON.parse(document.getElementById("charts").textContent) || [];
  charts.forEach(function (c) {
    try {
      make(c);
    } catch (e) {
      var el = document.getElementById(c.id);
      if (el) el.dataset.error = String(e);
      console.error("chart " + c.id + ": " + e);
    }
  });
})();
