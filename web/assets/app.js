// git uwf serve: keeps the open page current. The server sends "refs"
// when a thread ref moves or a step starts or ends; the page then fetches
// itself and swaps its <main> for the new one. On a thread page it also
// sends the running step's log ("log" events) which is appended as text.
(function () {
  "use strict";
  var src = document.body.getAttribute("data-events");
  if (!src || !window.EventSource) {
    return;
  }
  var badge = document.getElementById("live-status");
  var refreshing = false;
  var again = false;

  function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    fetch(window.location.href, { headers: { "Accept": "text/html" }, cache: "no-store" })
      .then(function (res) { return res.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        var cur = document.querySelector("main");
        if (fresh && cur) {
          // Keep the <details> the reader opened.
          var open = {};
          cur.querySelectorAll("details[open]").forEach(function (d, i) { open[i] = true; });
          cur.replaceWith(fresh);
          fresh.querySelectorAll("details").forEach(function (d, i) { if (open[i]) { d.open = true; } });
        }
        var live = doc.getElementById("live");
        var curLive = document.getElementById("live");
        if (live && curLive && !live.hidden) {
          curLive.hidden = false;
        }
        document.body.setAttribute("data-refreshed", String(Date.now()));
      })
      .catch(function () {})
      .then(function () {
        refreshing = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  }

  var es = new EventSource(src);
  es.addEventListener("open", function () { if (badge) { badge.hidden = false; } });
  es.addEventListener("error", function () { if (badge) { badge.hidden = true; } });
  es.addEventListener("refs", refresh);
  es.addEventListener("log", function (ev) {
    var pre = document.getElementById("live-log");
    var box = document.getElementById("live");
    if (!pre) {
      return;
    }
    if (box) {
      box.hidden = false;
    }
    pre.textContent += JSON.parse(ev.data);
    pre.scrollTop = pre.scrollHeight;
  });
  es.addEventListener("logreset", function () {
    var pre = document.getElementById("live-log");
    if (pre) {
      pre.textContent = "";
    }
  });
})();
