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
  poll();
})();
