// guard serve: fetch what changed and put it in place, without a reload.
// The server answers /api/changes?since=VERSION&epoch=RUN when something
// newer than VERSION exists (or after a while, with nothing), so this asks
// again at once; after an error it waits and asks again. A server that
// restarted (another RUN) sends the page's main part whole.
(function () {
  "use strict";
  var version = document.body.getAttribute("data-version");
  var epoch = document.body.getAttribute("data-epoch");
  var note = document.getElementById("live");
  function place(f) {
    var el = document.getElementById(f.id);
    if (el) {
      el.outerHTML = f.html;
      return;
    }
    var box = document.getElementById(f.into);
    if (box) {
      box.insertAdjacentHTML("beforeend", f.html);
    }
  }
  function apply(d) {
    (d.fragments || []).forEach(place);
    (d.removed || []).forEach(function (id) {
      var el = document.getElementById(id);
      if (el) {
        el.remove();
      }
    });
    version = String(d.version);
    epoch = d.epoch;
    document.body.setAttribute("data-version", version);
    document.body.setAttribute("data-epoch", epoch);
    note.textContent = "live";
    document.dispatchEvent(new Event("guard-update"));
  }
  function poll() {
    fetch("api/changes?since=" + encodeURIComponent(version) + "&epoch=" + encodeURIComponent(epoch), { cache: "no-store" })
      .then(function (r) {
        if (!r.ok) {
          throw new Error("HTTP " + r.status);
        }
        return r.json();
      })
      .then(function (d) {
        apply(d);
        setTimeout(poll, 0);
      })
      .catch(function () {
        note.textContent = "not connected; trying again";
        setTimeout(poll, 3000);
      });
  }
  // Relative times ("4 min ago", "in 1 min") follow the clock between
  // updates.
  function span(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) {
      return s + "s";
    }
    var m = Math.floor(s / 60);
    if (m < 60) {
      return m + " min";
    }
    var h = Math.floor(m / 60);
    if (h < 24) {
      return m % 60 === 0 || h >= 10 ? h + "h" : h + "h " + (m % 60) + " min";
    }
    var d = Math.floor(h / 24);
    return d + (d === 1 ? " day" : " days") + (h % 24 === 0 || d >= 3 ? "" : " " + (h % 24) + "h");
  }
  function relative() {
    var now = Date.now();
    document.querySelectorAll("time[data-rel]").forEach(function (t) {
      var at = Date.parse(t.getAttribute("datetime"));
      if (isNaN(at)) {
        return;
      }
      if (t.getAttribute("data-rel") === "in") {
        t.textContent = at > now ? "in " + span(at - now) : "now";
      } else {
        t.textContent = now - at < 1000 ? "just now" : span(now - at) + " ago";
      }
    });
  }
  setInterval(relative, 15000);
  poll();
})();
