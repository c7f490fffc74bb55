// Sorting and filtering, and nothing else: the page reads the same
// without this script.
(function () {
  "use strict";
  var tools = document.getElementById("tools");
  var query = document.getElementById("q");
  var order = document.getElementById("sort");
  var boxes = tools.querySelectorAll("input[type=checkbox]");
  tools.hidden = false;

  function keyOf(el) {
    var k = el.querySelector(".key");
    return k ? k.textContent : "";
  }
  function num(el, name) {
    return Number(el.getAttribute(name)) || 0;
  }
  // A tile's state (closed, open, half_open, forced_open, observe,
  // disabled) and rank (most urgent first) are in its data.
  function stateOf(el) {
    return el.getAttribute("data-state") || "closed";
  }
  var compare = {
    urgent: function (a, b) {
      return num(a, "data-rank") - num(b, "data-rank") || keyOf(a).localeCompare(keyOf(b));
    },
    key: function (a, b) {
      return keyOf(a).localeCompare(keyOf(b));
    },
    failures: function (a, b) {
      return num(b, "data-fail") - num(a, "data-fail") || compare.urgent(a, b);
    },
    slowest: function (a, b) {
      return num(b, "data-p95") - num(a, "data-p95") || compare.urgent(a, b);
    }
  };
  function sortChildren(box, cmp) {
    if (!box) {
      return;
    }
    var items = Array.prototype.slice.call(box.children);
    items.sort(cmp);
    items.forEach(function (el) {
      box.appendChild(el);
    });
  }
  function update() {
    var text = query.value.toLowerCase();
    var show = {};
    boxes.forEach(function (b) {
      show[b.value] = b.checked;
    });
    sortChildren(document.getElementById("tiles"), compare[order.value] || compare.urgent);
    sortChildren(document.getElementById("rt"), compare.slowest);
    document.querySelectorAll("#tiles > .tile").forEach(function (t) {
      t.hidden = !show[stateOf(t)] || t.textContent.toLowerCase().indexOf(text) < 0;
    });
    document.querySelectorAll("#rt > tr").forEach(function (r) {
      r.hidden = keyOf(r).toLowerCase().indexOf(text) < 0;
    });
  }
  query.addEventListener("input", update);
  order.addEventListener("change", update);
  boxes.forEach(function (b) {
    b.addEventListener("change", update);
  });
  // The live page (guard serve) tells when it put in what changed.
  document.addEventListener("guard-update", update);
  update();
})();
