// The playground's script (package web/docs), loaded with the page's CSP
// nonce. Without it the page is a code generator: each endpoint's form
// submits to the page, which writes the request's code. With it:
//
// - the key: pasted, or chosen from the signed-in developer's keys (whose
//   secrets the browser holds only if it was given them: a key it does
//   not hold says "paste it" in the list); a #key=<secret>
//   fragment (the portal's link after creating a key) is removed from the
//   address at once and offered in the page: it fills the field and is
//   kept only when the visitor says so (a link anyone can send must not
//   plant a key in the browser). Keys are kept in localStorage when the
//   visitor allowed preferences, else in sessionStorage (this tab).
// - the request lives in the address (never the key), updated as the
//   form changes, so it can be shared as a link;
// - Send: fetch from the browser to the API with X-API-Key, then the
//   status, the time, the headers (rate-limit headers marked) and the
//   body as JSON, its first level unfolded, or as raw text, with a copy
//   button, built with textContent only, never innerHTML;
// - the code in curl, JavaScript, Python and Go, the same as the page's
//   Go writes it (docs/code.go; the tests hold the two together), with
//   copy buttons;
// - a perfume slug picker that searches /api/search as the visitor types.
(function () {
  "use strict";
  var root = document.getElementById("playground");
  if (!root) return;
  var base = root.getAttribute("data-base");
  var imageBase = root.getAttribute("data-image-base");
  var keyEnv = root.getAttribute("data-key-env");
  var STORE = "fds-playground-keys";
  var remember = root.getAttribute("data-remember") === "local";
  var RATE_LIMIT = ["ratelimit", "ratelimit-policy", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"];

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- Keys -------------------------------------------------------------
  var memory = [];
  function storage() {
    try { return remember ? window.localStorage : window.sessionStorage; } catch (e) { return null; }
  }
  try {
    if (!remember) {
      // Preferences not (or no longer) allowed: nothing stays on the device.
      window.localStorage.removeItem(STORE);
    } else if (window.sessionStorage.getItem(STORE)) {
      // Allowed since a key was pasted in this tab: keep it as allowed now.
      var before = JSON.parse(window.sessionStorage.getItem(STORE)) || [];
      var now = JSON.parse(window.localStorage.getItem(STORE) || "[]") || [];
      window.localStorage.setItem(STORE, JSON.stringify(now.concat(before.filter(function (k) { return now.indexOf(k) < 0; })).slice(0, 20)));
      window.sessionStorage.removeItem(STORE);
    }
  } catch (e) { /* storage refused: keys stay in memory */ }
  function heldKeys() {
    var s = storage();
    if (!s) return memory.slice();
    try {
      var v = JSON.parse(s.getItem(STORE) || "[]");
      return Array.isArray(v) ? v.filter(function (k) { return typeof k === "string"; }) : [];
    } catch (e) { return memory.slice(); }
  }
  function keep(secret) {
    var keys = heldKeys().filter(function (k) { return k !== secret; });
    keys.unshift(secret);
    keys = keys.slice(0, 20);
    memory = keys;
    var s = storage();
    try { if (s) s.setItem(STORE, JSON.stringify(keys)); } catch (e) { /* kept in memory */ }
  }
  function forget() {
    memory = [];
    [function () { return window.localStorage; }, function () { return window.sessionStorage; }].forEach(function (get) {
      try { get().removeItem(STORE); } catch (e) { /* nothing kept */ }
    });
  }
  function heldFor(prefix) {
    var keys = heldKeys();
    for (var i = 0; i < keys.length; i++) if (prefix && keys[i].indexOf(prefix) === 0) return keys[i];
    return "";
  }

  var keyBox = document.getElementById("pg-key-box");
  var keyInput = document.getElementById("pg-key");
  var choice = document.getElementById("pg-key-choice");
  var ask = document.getElementById("pg-key-ask");
  keyBox.hidden = false;

  function say(text) { ask.textContent = text; ask.hidden = !text; }
  function chooseFor(secret) {
    if (!choice) return;
    choice.value = "";
    for (var i = 0; i < choice.options.length; i++) {
      var p = choice.options[i].value;
      if (p && secret.indexOf(p) === 0) { choice.value = p; return; }
    }
  }
  function onChoice() {
    var prefix = choice.value;
    if (!prefix) { say(""); return; }
    var secret = heldFor(prefix);
    if (secret) { keyInput.value = secret; say(""); return; }
    keyInput.value = "";
    say("This browser does not hold the secret of " + prefix + "…: a key's secret is shown once, when it is made, and the server never has it. Paste it in the field below.");
    keyInput.focus();
  }
  // Each of the developer's keys says whether this browser holds its
  // secret; one it does not hold says to paste it.
  function labelChoices() {
    if (!choice) return;
    for (var i = 0; i < choice.options.length; i++) {
      var o = choice.options[i];
      if (!o.value) continue;
      if (!o.hasAttribute("data-label")) o.setAttribute("data-label", o.textContent);
      o.textContent = o.getAttribute("data-label") + (heldFor(o.value) ? "" : " · paste it");
    }
  }
  labelChoices();
  if (choice) choice.addEventListener("change", onChoice);
  keyInput.addEventListener("change", function () {
    var v = keyInput.value.trim();
    if (!v) return;
    keep(v);
    labelChoices();
    if (choice && choice.value && v.indexOf(choice.value) !== 0) chooseFor(v);
    else if (choice && !choice.value) chooseFor(v);
    say("");
  });
  document.getElementById("pg-key-forget").addEventListener("click", function () {
    forget();
    labelChoices();
    keyInput.value = "";
    if (choice) choice.value = "";
    say("Forgotten: this browser holds no key of the playground now.");
  });

  // The portal's link after a key is made: #key=<secret>. Take it out of
  // the address (and the history) at once, and ask before using or
  // keeping it: the question names the key's start, the answer is two
  // buttons in the page (no window.confirm).
  function offerKey(secret) {
    var offer = el("div", "notice pg-key-offer");
    offer.id = "pg-key-offer";
    offer.setAttribute("role", "group");
    offer.setAttribute("aria-labelledby", "pg-key-offer-q");
    var q = el("p", "", "A link gave this page an API key (it starts " + secret.slice(0, 12) +
      "…). Use it here and keep it in this browser? Only say yes to a key you made yourself.");
    q.id = "pg-key-offer-q";
    var use = el("button", "btn", "Use this key");
    var no = el("button", "btn ghost", "Don't use it");
    use.type = no.type = "button";
    use.id = "pg-key-offer-use";
    no.id = "pg-key-offer-no";
    var buttons = el("p");
    buttons.appendChild(use);
    buttons.appendChild(document.createTextNode(" "));
    buttons.appendChild(no);
    offer.appendChild(q);
    offer.appendChild(buttons);
    ask.parentNode.insertBefore(offer, ask);
    use.addEventListener("click", function () {
      offer.remove();
      keyInput.value = secret;
      keep(secret);
      labelChoices();
      chooseFor(secret);
      say("Your new key is in the field. Keep a copy of it somewhere safe: it is not shown again.");
      keyInput.focus();
    });
    no.addEventListener("click", function () {
      offer.remove();
      say("The key from the link was not used, nor kept.");
    });
    use.focus();
  }
  var fromLink = "";
  if (location.hash.indexOf("#key=") === 0) {
    try { fromLink = decodeURIComponent(location.hash.slice(5)).trim(); } catch (e) { fromLink = ""; }
    history.replaceState(history.state, "", location.pathname + location.search);
    if (fromLink) offerKey(fromLink);
  }
  if (!fromLink) {
    // The first of the developer's keys this browser holds, else the key
    // pasted last.
    var held = heldKeys();
    for (var c = 1; choice && c < choice.options.length; c++) {
      if (heldFor(choice.options[c].value)) { choice.value = choice.options[c].value; onChoice(); break; }
    }
    if (!keyInput.value && held.length) { keyInput.value = held[0]; chooseFor(held[0]); }
  }

  // ---- The request and its code -----------------------------------------
  // queryEscape and pathEscape escape as docs/state.go does.
  function escapeURI(s) {
    try {
      return encodeURIComponent(s).replace(/[!'()*]/g, function (ch) {
        return "%" + ch.charCodeAt(0).toString(16).toUpperCase();
      });
    } catch (e) { return ""; } // a lone surrogate
  }
  function queryEscape(s) { return escapeURI(s).replace(/%20/g, "+").replace(/%3A/g, ":").replace(/%2C/g, ","); }
  function pathEscape(s) { return escapeURI(s); }

  function stateOf(form) {
    var st = {
      id: form.getAttribute("data-endpoint"),
      method: form.getAttribute("data-method"),
      path: form.getAttribute("data-path"),
      body: form.getAttribute("data-body"),
      keyless: form.hasAttribute("data-keyless"),
      params: []
    };
    form.querySelectorAll("[data-in]").forEach(function (f) {
      st.params.push({ name: f.name, in: f.getAttribute("data-in"), value: f.value.trim(), field: f,
        required: f.getAttribute("aria-required") === "true" || f.getAttribute("data-in") === "path" });
    });
    return st;
  }
  function requestURL(st) {
    var path = st.path, b = base;
    if (path.indexOf("/img/") === 0) { path = path.slice(4); b = imageBase; }
    st.params.forEach(function (p) {
      if (p.in === "path" && p.value) path = path.split("{" + p.name + "}").join(pathEscape(p.value));
    });
    var q = [];
    st.params.forEach(function (p) {
      if (p.in === "query" && p.value) q.push(queryEscape(p.name) + "=" + queryEscape(p.value));
    });
    return b + path + (q.length ? "?" + q.join("&") : "");
  }
  function playgroundURL(st) {
    var s = location.pathname + "?endpoint=" + queryEscape(st.id);
    st.params.forEach(function (p) {
      if (p.value) s += "&" + queryEscape(p.name) + "=" + queryEscape(p.value);
    });
    return s;
  }
  function headersOf(st) {
    var hs = [];
    if (!st.keyless) hs.push({ name: "X-API-Key", key: true });
    st.params.forEach(function (p) {
      if (p.in === "header" && p.value) hs.push({ name: p.name, value: p.value });
    });
    return hs;
  }
  function shellQuote(s) { return "'" + s.split("'").join("'\\''") + "'"; }
  function q(s) { return JSON.stringify(s); }

  // snippets writes what docs/code.go writes.
  function snippets(st) {
    var u = requestURL(st), hs = headersOf(st), m = st.method, body = st.body;
    var hasKey = hs.some(function (h) { return h.key; });
    var curl = "curl -sS -i" + (m !== "GET" ? " -X " + m : "");
    hs.forEach(function (h) {
      curl += h.key ? " -H \"" + h.name + ": $" + keyEnv + "\"" : " -H " + shellQuote(h.name + ": " + h.value);
    });
    curl += " " + shellQuote(u);

    var js = "const res = await fetch(" + q(u);
    if (m !== "GET" || hs.length) {
      js += ", {\n";
      if (m !== "GET") js += "  method: " + q(m) + ",\n";
      if (hs.length) {
        js += "  headers: {\n";
        hs.forEach(function (h) { js += "    " + q(h.name) + ": " + (h.key ? "process.env." + keyEnv : q(h.value)) + ",\n"; });
        js += "  },\n";
      }
      js += "}";
    }
    js += ");\n";
    js += body === "json" ? "console.log(res.status, await res.json());"
      : body === "text" ? "console.log(res.status, await res.text());"
      : "console.log(res.status, (await res.arrayBuffer()).byteLength, \"bytes\");";

    var py = (hasKey ? "import os\n\n" : "") + "import requests\n\n";
    py += m === "GET" ? "res = requests.get(\n" : "res = requests.request(\n    " + q(m) + ",\n";
    py += "    " + q(u) + ",\n";
    if (hs.length) {
      py += "    headers={\n";
      hs.forEach(function (h) { py += "        " + q(h.name) + ": " + (h.key ? "os.environ[\"" + keyEnv + "\"]" : q(h.value)) + ",\n"; });
      py += "    },\n";
    }
    py += "    timeout=30,\n)\n";
    py += body === "json" ? "print(res.status_code, res.json())"
      : body === "text" ? "print(res.status_code, res.text)"
      : "print(res.status_code, len(res.content), \"bytes\")";

    var go = "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n" + (hasKey ? "\t\"os\"\n" : "") + ")\n\nfunc main() {\n";
    go += "\treq, err := http.NewRequest(" + q(m) + ", " + q(u) + ", nil)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n";
    hs.forEach(function (h) {
      go += "\treq.Header.Set(" + q(h.name) + ", " + (h.key ? "os.Getenv(\"" + keyEnv + "\")" : q(h.value)) + ")\n";
    });
    go += "\tres, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n";
    go += "\tdefer res.Body.Close()\n\tbody, err := io.ReadAll(res.Body)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n";
    go += body === "binary" ? "\tfmt.Println(res.Status, len(body), \"bytes\")\n}" : "\tfmt.Println(res.Status)\n\tfmt.Println(string(body))\n}";
    var cl = clientCode(st);
    return { curl: curl, js: js, python: py, go: go, pyclient: cl.py, tsclient: cl.ts };
  }

  // snakeCase is docs/code.go's snakeCase: the Python client's names.
  function snakeCase(s) {
    return s.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().split("-").join("_");
  }
  // clientCode writes what docs/code.go's clientCode writes.
  function clientCode(st) {
    if (st.method !== "GET" || st.body !== "json" || st.path.indexOf("/api/") !== 0 || st.path === "/api/openapi.json") {
      return { py: "# the Python client calls the JSON endpoints under /api; this one is plain HTTP (above)",
        ts: "// the TypeScript client calls the JSON endpoints under /api; this one is plain HTTP (above)" };
    }
    var args = [], pathArgs = [], queryArgs = [];
    st.params.forEach(function (p) {
      var whole = p.field.getAttribute("inputmode") === "numeric" && /^[0-9]+$/.test(p.value);
      var lit = whole ? p.value : q(p.value);
      if (p.in === "path") {
        args.push(q(p.value));
        pathArgs.push(p.name + ": " + q(p.value));
      } else if (p.in === "query" && p.value) {
        args.push(snakeCase(p.name) + "=" + lit);
        queryArgs.push(q(p.name) + ": " + lit);
      }
    });
    var py = "from fragrance_client import Client\n\nc = Client(" + q(base) + ")  # the key from " + keyEnv + "\n" +
      "print(c." + snakeCase(st.id) + "(" + args.join(", ") + "))";
    var params = [];
    if (pathArgs.length) params.push("path: { " + pathArgs.join(", ") + " }");
    if (queryArgs.length) params.push("query: { " + queryArgs.join(", ") + " }");
    var opts = params.length ? ", { params: { " + params.join(", ") + " } }" : "";
    var ts = "import { FragranceClient } from \"fragrance-client\";\n\nconst c = new FragranceClient(" + q(base) + "); // the key from " + keyEnv + "\n" +
      "const { data, error, response } = await c.api.GET(" + q(st.path) + opts + ");\n" +
      "console.log(response.status, data ?? error);";
    return { py: py, ts: ts };
  }

  var out = document.getElementById("pg-out");
  var response = document.getElementById("pg-response");
  var current = null;

  function update(form, push) {
    var st = stateOf(form);
    current = form;
    var url = playgroundURL(st);
    if (push) history.pushState(null, "", url); else history.replaceState(history.state, "", url);
    document.getElementById("pg-method").textContent = st.method;
    var u = document.getElementById("pg-url");
    u.lastChild.textContent = " " + requestURL(st);
    var code = snippets(st);
    out.querySelectorAll("code[data-lang]").forEach(function (c) { c.textContent = code[c.getAttribute("data-lang")]; });
    var missing = st.params.filter(function (p) { return p.required && !p.value; }).map(function (p) { return p.name; });
    var m = document.getElementById("pg-missing");
    m.hidden = missing.length === 0;
    m.textContent = missing.length ? "Required: " + missing.join(", ") + ". Fill " + (missing.length === 1 ? "it" : "them") + " in before sending." : "";
    return st;
  }

  function open(details) {
    var form = details.querySelector("form.pg-form");
    if (!form || (form === current && out.parentNode === (details.querySelector(".pg-body") || details))) return;
    root.querySelectorAll("details.pg-ep[open]").forEach(function (d) { if (d !== details) d.open = false; });
    var body = details.querySelector(".pg-body") || details;
    if (out.parentNode !== body) {
      body.appendChild(out);
      response.hidden = true;
      response.textContent = "";
    }
    update(form, current !== null && current !== form);
  }

  // ---- The answer ---------------------------------------------------------
  function jsonNode(v, label, depth) {
    var li = el("li");
    if (label !== null) {
      li.appendChild(el("span", "k", label));
      li.appendChild(document.createTextNode(": "));
    }
    if (v !== null && typeof v === "object") {
      var arr = Array.isArray(v), keys = arr ? v.map(function (_, i) { return i; }) : Object.keys(v);
      if (!keys.length) { li.appendChild(el("span", "c", arr ? "[]" : "{}")); return li; }
      var d = el("details");
      d.open = depth < 1; // the first level unfolded, what is deeper folded
      var s = el("summary");
      if (label !== null) { s.appendChild(li.firstChild); s.appendChild(li.firstChild); }
      s.appendChild(el("span", "c", arr ? "[" + keys.length + (keys.length === 1 ? " item]" : " items]") : "{" + keys.length + (keys.length === 1 ? " member}" : " members}")));
      d.appendChild(s);
      var ul = el("ul");
      keys.forEach(function (k) { ul.appendChild(jsonNode(v[k], arr ? null : JSON.stringify(k), depth + 1)); });
      d.appendChild(ul);
      li.appendChild(d);
      return li;
    }
    var cls = typeof v === "string" ? "s" : typeof v === "number" ? "n" : typeof v === "boolean" ? "b" : "z";
    li.appendChild(el("span", cls, JSON.stringify(v)));
    return li;
  }
  function showJSON(value) {
    var box = el("div", "json");
    box.tabIndex = 0; // it may scroll sideways

    var ul = el("ul");
    ul.appendChild(jsonNode(value, null, 0));
    box.appendChild(ul);
    return box;
  }
  // bodyViews is a JSON answer as a tree (its first level unfolded) and as
  // raw text (indented), a button switching between the two and one that
  // copies the raw text.
  function bodyViews(value) {
    var wrap = el("div", "pg-body-views");
    var bar = el("p", "pg-bodybar");
    var toggle = el("button", "btn ghost", "Raw JSON");
    toggle.type = "button";
    toggle.setAttribute("aria-pressed", "false");
    var copy = el("button", "btn ghost pg-copy", "Copy the answer");
    copy.type = "button";
    copy.setAttribute("data-copy", "pg-raw");
    bar.appendChild(toggle);
    bar.appendChild(copy);
    bar.appendChild(el("span", "pg-copied"));
    bar.lastChild.setAttribute("role", "status");
    var tree = showJSON(value);
    var text = JSON.stringify(value, null, 2);
    var raw = el("pre", "pg-raw");
    raw.tabIndex = 0;
    raw.appendChild(el("code", "", text.length > 200000 ? text.slice(0, 200000) + "\n…" : text));
    raw.firstChild.id = "pg-raw";
    raw.hidden = true;
    toggle.addEventListener("click", function () {
      var showRaw = raw.hidden;
      raw.hidden = !showRaw;
      tree.hidden = showRaw;
      toggle.textContent = showRaw ? "Tree" : "Raw JSON";
      toggle.setAttribute("aria-pressed", showRaw ? "true" : "false");
    });
    wrap.appendChild(bar);
    wrap.appendChild(tree);
    wrap.appendChild(raw);
    return wrap;
  }
  function showHeaders(res) {
    var names = [];
    res.headers.forEach(function (_, name) { names.push(name); });
    names.sort();
    var dl = el("dl", "pg-headers");
    names.forEach(function (name) {
      var rl = RATE_LIMIT.indexOf(name.toLowerCase()) >= 0;
      dl.appendChild(el("dt", rl ? "rl" : "", name));
      dl.appendChild(el("dd", rl ? "rl" : "", res.headers.get(name)));
    });
    return dl;
  }
  function show(parts) {
    response.textContent = "";
    parts.forEach(function (p) { if (p) response.appendChild(p); });
    response.hidden = false;
  }

  function send(form) {
    var st = update(form, false);
    var missing = st.params.filter(function (p) { return p.required && !p.value; });
    if (missing.length) {
      show([el("p", "notice", "Fill in " + missing.map(function (p) { return p.name; }).join(", ") + " first.")]);
      missing[0].field.focus();
      return;
    }
    var headers = {};
    if (!st.keyless) {
      var key = keyInput.value.trim();
      if (!key) {
        show([el("p", "notice", "Paste your API key first (in “Your key” above), or choose one of yours.")]);
        keyInput.focus();
        return;
      }
      headers["X-API-Key"] = key;
    }
    st.params.forEach(function (p) { if (p.in === "header" && p.value) headers[p.name] = p.value; });
    var url = requestURL(st);
    show([el("p", "muted", "Sending…")]);
    var t0 = performance.now();
    fetch(url, { method: st.method, headers: headers, redirect: "manual", cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" })
      .then(function (res) {
        if (res.type === "opaqueredirect") {
          return { res: res, ms: performance.now() - t0, kind: "redirect" };
        }
        var ct = (res.headers.get("Content-Type") || "").toLowerCase();
        var kind = ct.indexOf("json") >= 0 ? "json" : ct.indexOf("image/") === 0 ? "image" : "text";
        var read = kind === "image" ? res.arrayBuffer().then(function (b) { return b.byteLength; }) : res.text();
        return read.then(function (body) { return { res: res, ms: performance.now() - t0, kind: kind, body: body }; });
      })
      .then(function (a) {
        var meta = el("p", "pg-meta");
        var status = el("span");
        status.appendChild(el("strong", "", a.kind === "redirect" ? "Redirect" : String(a.res.status) + " " + a.res.statusText));
        meta.appendChild(status);
        meta.appendChild(el("span", "", "Time: " + Math.round(a.ms) + " ms"));
        var parts = [el("h4", "", "Answer"), meta];
        if (a.kind === "redirect") {
          parts.push(el("p", "", "A redirect: browsers do not show scripts where it leads. The curl command below (-i) shows its Location."));
          show(parts);
          return;
        }
        var hdrs = el("details");
        hdrs.open = true;
        hdrs.appendChild(el("summary", "", "Headers (rate-limit headers marked)"));
        hdrs.appendChild(showHeaders(a.res));
        parts.push(hdrs);
        parts.push(el("h4", "", "Body"));
        if (a.kind === "json") {
          var value, ok = true;
          try { value = JSON.parse(a.body); } catch (e) { ok = false; }
          var raw = el("pre", "", a.body.slice(0, 100000));
          raw.tabIndex = 0;
          if (ok) {
            parts.push(bodyViews(value));
          } else {
            parts.push(raw);
          }
        } else if (a.kind === "image") {
          parts.push(el("p", "", a.body + " bytes of " + (a.res.headers.get("Content-Type") || "image") + "."));
          if (a.res.ok) {
            var img = el("img", "pg-body-img");
            img.src = url;
            img.alt = "The image answered";
            parts.push(img);
          }
        } else {
          var pre = el("pre");
          pre.tabIndex = 0;
          pre.appendChild(el("code", "", a.body.length > 100000 ? a.body.slice(0, 100000) + "\n…" : a.body));
          parts.push(pre);
        }
        show(parts);
      })
      .catch(function (err) {
        show([el("p", "notice error", "No answer: " + (err && err.message ? err.message : err) +
          ". The network may be down, or the browser refused the request (CORS or the page's security policy).")]);
      });
  }

  // ---- Copy buttons --------------------------------------------------------
  root.addEventListener("click", function (e) {
    var btn = e.target.closest ? e.target.closest("button.pg-copy") : null;
    if (!btn) return;
    var code = document.getElementById(btn.getAttribute("data-copy"));
    var status = btn.parentNode.querySelector(".pg-copied");
    function selectIt() {
      var r = document.createRange();
      r.selectNodeContents(code);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(r);
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(code.textContent).then(function () { status.textContent = "Copied."; }, selectIt);
    } else {
      selectIt();
    }
  });

  // ---- The perfume slug picker ---------------------------------------------
  function picker(input) {
    var list = document.getElementById(input.getAttribute("list"));
    var timer = 0, seq = 0;
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var text = input.value.trim();
        if (text.length < 2) return;
        var mine = ++seq;
        fetch("/api/search?limit=10&q=" + encodeURIComponent(text), { headers: { Accept: "application/json" } })
          .then(function (r) { return r.ok ? r.json() : { perfumes: [] }; })
          .then(function (body) {
            if (mine !== seq) return;
            list.textContent = "";
            (body.perfumes || []).forEach(function (p) {
              var o = el("option", "", p.name + " · " + p.brand);
              o.value = p.slug;
              list.appendChild(o);
            });
          })
          .catch(function () { /* no suggestions */ });
      }, 150);
    });
  }

  // ---- Wiring ---------------------------------------------------------------
  root.querySelectorAll(".pg-send, .pg-copy").forEach(function (b) { b.hidden = false; });
  root.querySelectorAll(".pg-show").forEach(function (b) { b.hidden = true; });
  root.querySelectorAll("input[data-picker=perfume]").forEach(picker);
  root.querySelectorAll("form.pg-form").forEach(function (form) {
    form.addEventListener("submit", function (e) { e.preventDefault(); send(form); });
    form.querySelector(".pg-send").addEventListener("click", function () { send(form); });
    form.addEventListener("input", function (e) {
      var warn = e.target.closest(".field") && e.target.closest(".field").querySelector(".warn");
      if (warn) warn.hidden = true;
      update(form, false);
    });
    form.addEventListener("change", function () { update(form, false); });
  });
  root.querySelectorAll("details.pg-ep").forEach(function (d) {
    d.addEventListener("toggle", function () { if (d.open) open(d); });
  });
  var first = out && out.closest("details.pg-ep");
  if (first) current = first.querySelector("form.pg-form");
  // Back and forward between endpoints: the page of that address.
  window.addEventListener("popstate", function () { location.reload(); });
})();
