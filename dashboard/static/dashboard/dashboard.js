// Live updates over the project's websocket, and the copy buttons.
(function () {
  "use strict";
  var body = document.body;
  var project = body.dataset.liveProject;
  var indicator = document.getElementById("live-indicator");

  function connect(delay) {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/projects/" + project + "/");
    socket.onopen = function () { delay = 1000; if (indicator) indicator.classList.add("on"); };
    socket.onmessage = function (message) {
      var data = JSON.parse(message.data);
      if (indicator) { indicator.classList.add("pulse"); setTimeout(function () { indicator.classList.remove("pulse"); }, 600); }
      htmx.trigger(body, "graph-changed", data);
      if (String(data.session) === body.dataset.liveSession) htmx.trigger(body, "session-graph-changed", data);
    };
    socket.onclose = function (event) {
      if (indicator) indicator.classList.remove("on");
      if (event.code === 4404) return; // not a member: no point retrying
      setTimeout(function () { connect(Math.min(delay * 2, 30000)); }, delay);
    };
  }
  if (project && "WebSocket" in window) connect(1000);

  // "Now" in the time-travel control: forget the moment, keep the filters, reload the table.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-clear-travel]");
    if (!button) return;
    var form = button.form;
    form.elements.position.value = "";
    form.elements.at.value = "";
    form.requestSubmit();
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.querySelector(button.dataset.copy);
    var text = source.textContent;
    function done() { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 1500); }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else { fallback(); }
    function fallback() {
      var range = document.createRange(); range.selectNodeContents(source);
      var selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
      try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selected to copy by hand */ }
    }
  });
})();
