// Keeps a Stagecoach dashboard page live. The server sends the page's changing part again
// whenever the management cluster changes it (server-sent events), and times such as "in 3m"
// tick here in between.
(function () {
  "use strict";

  function relative(then, now) {
    var d = Math.round((then - now) / 1000);
    var future = d > 0;
    if (!future) d = -d;
    var s;
    if (d < 60) s = d + "s";
    else if (d < 3600) s = Math.floor(d / 60) + "m";
    else if (d < 172800) s = Math.floor(d / 3600) + "h" + String(Math.floor(d / 60) % 60).padStart(2, "0") + "m";
    else s = Math.floor(d / 86400) + "d";
    if (!future) return s + " ago";
    var t = new Date(then);
    var day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][t.getUTCDay()];
    var hm = String(t.getUTCHours()).padStart(2, "0") + ":" + String(t.getUTCMinutes()).padStart(2, "0");
    return "in " + s + " (" + day + " " + hm + " UTC)";
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-relative]").forEach(function (el) {
      var then = Date.parse(el.getAttribute("datetime"));
      if (!isNaN(then)) el.textContent = relative(then, now);
    });
  }

  var conn = document.getElementById("conn");
  var live = document.getElementById("live");
  if (conn && live && window.EventSource) {
    var source = new EventSource(conn.dataset.live);
    source.addEventListener("open", function () {
      conn.textContent = "live";
      conn.className = "conn on";
    });
    source.addEventListener("error", function () {
      conn.textContent = "reconnecting…";
      conn.className = "conn off";
    });
    source.addEventListener("update", function (e) {
      // Keep the viewer's place: the focused control, found again by its id, and the choice
      // made in each list.
      var focused = document.activeElement && document.activeElement.id;
      var chosen = {};
      live.querySelectorAll("select[id]").forEach(function (el) { chosen[el.id] = el.value; });
      live.innerHTML = e.data;
      Object.keys(chosen).forEach(function (id) {
        var el = document.getElementById(id);
        if (el && el.querySelector('option[value="' + chosen[id] + '"]')) el.value = chosen[id];
      });
      if (focused) {
        var again = document.getElementById(focused);
        if (again) again.focus();
      }
      live.dataset.updated = String(Date.now());
      tick();
    });
  }
  tick();
  setInterval(tick, 1000);
})();
