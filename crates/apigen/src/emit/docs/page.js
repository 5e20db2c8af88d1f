(function () {
  "use strict";
  var all = function (selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); };

  // Search: operations and their sidebar entries whose id, path or summary
  // hold the text.
  var search = document.getElementById("search");
  search.addEventListener("input", function () {
    var q = search.value.trim().toLowerCase();
    all("[data-search]").forEach(function (el) {
      el.hidden = q !== "" && el.dataset.search.indexOf(q) < 0;
    });
  });

  // Sunsets that have passed, by today's date.
  var today = new Date().toISOString().slice(0, 10);
  all("[data-sunset]").forEach(function (el) {
    if (today >= el.dataset.sunset) {
      el.classList.add("passed");
      var when = el.querySelector(".when");
      if (when) { when.textContent = "Sunset passed on " + el.dataset.sunset; }
    }
  });

  // Deep links: #operation/placeOrder, #schema/Pet.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    target.hidden = false;
    // Sections are laid out when they come into view (`content-visibility`),
    // so those the jump passes may grow or shrink after it and move the
    // target: place it again on the next frames, until it has stayed put
    // for five of them (a second at most).
    var frames = 0, still = 0, last = null;
    (function place() {
      target.scrollIntoView();
      var top = target.getBoundingClientRect().top;
      still = top === last ? still + 1 : 0;
      last = top;
      if (still < 5 && ++frames < 60) { requestAnimationFrame(place); }
    })();
    // The keyboard goes on from there: a section's heading, or the target.
    var focus = (target.tagName === "SECTION" && target.querySelector("h2, h3")) || target;
    if (!focus.hasAttribute("tabindex")) { focus.setAttribute("tabindex", "-1"); }
    focus.focus({ preventScroll: true });
  }
  window.addEventListener("hashchange", reveal);
  reveal();

  // A reference expands in place, one level at a time, on demand: the
  // schema's own section, copied when first opened.
  document.addEventListener("toggle", function (event) {
    var d = event.target;
    if (!d.open || !d.dataset || !d.dataset.schema || d.dataset.filled) { return; }
    d.dataset.filled = "1";
    var source = document.getElementById("schema/" + d.dataset.schema);
    var body = source && source.querySelector(".schema-body");
    if (body) { d.appendChild(body.cloneNode(true)); }
  }, true);

  // Try it: the request from the form, the key from the header field (never
  // stored), the answer as text.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("tryit")) { return; }
    event.preventDefault();
    var path = form.dataset.path, query = [], headers = {};
    all("input[data-in]", form).forEach(function (input) {
      if (input.value === "") { return; }
      var where = input.dataset.in;
      if (where === "path") { path = path.replace("{" + input.name + "}", encodeURIComponent(input.value)); }
      else if (where === "query") {
        // An exploded list repeats its name: "1,2" is sent as id=1&id=2.
        var values = input.dataset.explode ? input.value.split(",") : [input.value];
        values.forEach(function (v) { query.push(encodeURIComponent(input.name) + "=" + encodeURIComponent(v.trim())); });
      }
      else if (where === "header") { headers[input.name] = input.value; }
    });
    var key = document.getElementById("api-key").value;
    if (key) { headers.Authorization = "Bearer " + key; }
    var init = { method: form.dataset.method, headers: headers };
    var body = form.querySelector("textarea[name=body]");
    var result = form.querySelector(".result");
    if (body && body.value.trim() !== "") {
      if (body.dataset.form) {
        try { init.body = formEncode(JSON.parse(body.value)); } catch (e) {
          result.textContent = "The body is not JSON: " + e.message;
          return;
        }
        headers["Content-Type"] = "application/x-www-form-urlencoded";
      } else {
        init.body = body.value;
        headers["Content-Type"] = "application/json";
      }
    }
    var url = base() + path + (query.length ? "?" + query.join("&") : "");
    // A stream this form opened before ends when it sends again.
    if (form.streaming) { form.streaming.abort(); }
    var controller = new AbortController();
    init.signal = controller.signal;
    result.textContent = "Sending " + init.method + " " + url + " ...";
    fetch(url, init).then(function (response) {
      var type = response.headers.get("content-type") || "";
      if (type.indexOf("text/event-stream") === 0 && response.body) {
        form.streaming = controller;
        follow(result, response, controller);
        return;
      }
      return response.text().then(function (text) { show(result, response, text); });
    }, function (error) {
      result.textContent = "The request failed: " + error;
    });
  });

  // A stream of events, shown as it arrives until it ends or Stop is
  // pressed.
  function follow(result, response, controller) {
    var pre = show(result, response, "");
    var stop = document.createElement("button");
    stop.type = "button";
    stop.className = "stop";
    stop.textContent = "Stop";
    stop.addEventListener("click", function () { controller.abort(); });
    result.insertBefore(stop, pre);
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    (function next() {
      reader.read().then(function (chunk) {
        if (chunk.done) { stop.remove(); return; }
        pre.textContent += decoder.decode(chunk.value, { stream: true });
        next();
      }, function () { stop.remove(); });
    })();
  }

  // Where try it sends requests: the server chosen at the top, else the
  // spec's base path on this page's own server. A page opened from a file
  // has no server of its own, so it starts on the spec's first one.
  var servers = document.getElementById("server");
  if (servers && location.protocol === "file:" && servers.options.length > 1) { servers.selectedIndex = 1; }
  function base() { return servers ? servers.value : document.body.dataset.base; }

  // A JSON object as a form: lists repeat their name, nested objects are
  // written name[key] (the deepObject convention).
  function formEncode(value) {
    var params = new URLSearchParams();
    (function add(name, v) {
      if (v === null || v === undefined) { return; }
      if (Array.isArray(v)) { v.forEach(function (item) { add(name, item); }); }
      else if (typeof v === "object") { Object.keys(v).forEach(function (k) { add(name ? name + "[" + k + "]" : k, v[k]); }); }
      else { params.append(name, String(v)); }
    })("", value);
    return params.toString();
  }

  function show(result, response, text) {
    result.textContent = "";
    var status = document.createElement("p");
    status.className = "status " + (response.ok ? "ok" : "error");
    status.textContent = response.status + " " + response.statusText;
    result.appendChild(status);
    var list = document.createElement("ul");
    list.className = "headers";
    response.headers.forEach(function (value, name) {
      var item = document.createElement("li");
      if (name.indexOf("x-ratelimit-") === 0) { item.className = "ratelimit"; }
      item.textContent = name + ": " + value;
      list.appendChild(item);
    });
    result.appendChild(list);
    var pre = document.createElement("pre");
    try { pre.textContent = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { pre.textContent = text; }
    result.appendChild(pre);
    return pre;
  }
})();
