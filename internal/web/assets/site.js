// The service's own script, loaded with the page's CSP nonce. Everything it
// does is an enhancement: every form and link works without it.
//
// Search suggestions: an <input data-suggest="LIST-ID"> asks /api/search as
// the visitor types and shows the answers in the listbox LIST-ID (a
// combobox: arrow keys move, Enter opens, Escape closes). A suggestion
// opens the perfume's page, or, when the input has data-suggest-to="URL",
// URL followed by the perfume's slug (the taste page adds it so).
(function () {
  "use strict";
  function suggest(input) {
    var list = document.getElementById(input.getAttribute("data-suggest"));
    if (!list) return;
    var to = input.getAttribute("data-suggest-to");
    var timer = 0, seq = 0, active = -1;
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);
    function close() {
      list.hidden = true;
      list.textContent = "";
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }
    function mark(i) {
      var items = list.querySelectorAll("a");
      if (!items.length) return;
      active = (i + items.length) % items.length;
      items.forEach(function (a, j) { a.setAttribute("aria-selected", j === active ? "true" : "false"); });
      input.setAttribute("aria-activedescendant", items[active].id);
    }
    function show(perfumes) {
      list.textContent = "";
      active = -1;
      perfumes.forEach(function (p, i) {
        var li = document.createElement("li");
        li.setAttribute("role", "presentation");
        var a = document.createElement("a");
        a.href = (to || "/perfumes/") + encodeURIComponent(p.slug);
        a.id = list.id + "-" + i;
        a.setAttribute("role", "option");
        a.setAttribute("aria-selected", "false");
        a.tabIndex = -1;
        var img = document.createElement("img");
        img.src = p.image;
        img.alt = "";
        img.loading = "lazy";
        var text = document.createElement("span");
        text.textContent = p.name + " · " + p.brand;
        a.appendChild(img);
        a.appendChild(text);
        li.appendChild(a);
        list.appendChild(li);
      });
      list.hidden = perfumes.length === 0;
      input.setAttribute("aria-expanded", perfumes.length ? "true" : "false");
    }
    function ask() {
      var q = input.value.trim();
      if (q.length < 2) { close(); return; }
      var mine = ++seq;
      fetch("/api/search?limit=8&q=" + encodeURIComponent(q), { headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : { perfumes: [] }; })
        .then(function (body) { if (mine === seq) show(body.perfumes || []); })
        .catch(function () { if (mine === seq) close(); });
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, 120);
    });
    input.addEventListener("keydown", function (e) {
      if (list.hidden) return;
      if (e.key === "ArrowDown") { e.preventDefault(); mark(active + 1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); mark(active - 1); }
      else if (e.key === "Escape") { close(); }
      else if (e.key === "Enter" && active >= 0) {
        e.preventDefault();
        list.querySelectorAll("a")[active].click();
      }
    });
    input.addEventListener("blur", function () { setTimeout(close, 200); });
  }
  document.querySelectorAll("input[data-suggest]").forEach(suggest);
})();

// Copy buttons: a <button data-copy="ID" hidden> copies the value (or the
// text) of element ID. Hidden without JavaScript: the text can be
// selected and copied by hand.
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    var el = document.getElementById(b.getAttribute("data-copy"));
    if (!el || !navigator.clipboard) return;
    var label = b.textContent;
    b.hidden = false;
    b.addEventListener("click", function () {
      navigator.clipboard.writeText("value" in el ? el.value : el.textContent).then(function () {
        b.textContent = "Copied";
        setTimeout(function () { b.textContent = label; }, 2000);
      });
    });
  });
})();

// The cookie banner: with JavaScript a choice is sent without leaving the
// page, so the visitor stays where they were on it (the banner goes);
// consent to analytics, where the operator has a snippet, reloads the page
// instead, which then carries it, and the browser keeps the scroll
// position. Without JavaScript the form posts and comes back to the same
// address.
(function () {
  "use strict";
  var banner = document.querySelector("section.consent");
  var form = banner && banner.querySelector("form");
  if (!form || !window.fetch || !window.URLSearchParams) return;
  form.addEventListener("submit", function (e) {
    var button = e.submitter;
    if (!button || button.name !== "choice") return;
    e.preventDefault();
    var data = new FormData(form);
    data.set("choice", button.value);
    var choice = button.value;
    var analytics = choice === "accept" || (choice === "save" && data.get("analytics") === "on");
    fetch(form.action, { method: "POST", body: new URLSearchParams(data), credentials: "same-origin", redirect: "manual" })
      .then(function (r) {
        if (r.type !== "opaqueredirect" && !r.ok) throw new Error("consent: " + r.status);
        if (analytics && form.hasAttribute("data-analytics")) {
          location.reload();
          return;
        }
        var hadFocus = banner.contains(document.activeElement);
        banner.remove();
        document.body.classList.remove("asking");
        if (hadFocus) document.getElementById("main").focus({ preventScroll: true });
      })
      .catch(function () {
        // Post it the plain way, which comes back to this page.
        var field = document.createElement("input");
        field.type = "hidden";
        field.name = "choice";
        field.value = choice;
        form.appendChild(field);
        form.submit();
      });
  });
})();

// The header's Menu (a details element on a phone): Escape closes it and
// gives the focus back to its button; a click elsewhere closes it.
(function () {
  "use strict";
  var menu = document.querySelector("details.menu");
  if (!menu) return;
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
  document.addEventListener("click", function (e) {
    if (menu.open && !menu.contains(e.target)) menu.open = false;
  });
})();

// Live filters: a list's filter (a GET form with data-live="ID …")
// shows its answer as the visitor types. The script asks for the page the
// form would open and puts the content of its elements ID … in place of
// this page's (the list, its status, which is a live region, and the
// index); the address follows, so that a reload or a shared link shows
// the same. Without JavaScript the form's button does it.
(function () {
  "use strict";
  if (!window.fetch || !window.DOMParser || !window.URLSearchParams) return;
  document.querySelectorAll("form[data-live]").forEach(function (form) {
    var ids = form.getAttribute("data-live").split(/\s+/);
    var input = form.querySelector("input[name=q]");
    if (!input) return;
    var timer = 0, seq = 0;
    function show(url) {
      var mine = ++seq;
      fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          if (mine !== seq) return;
          var doc = new DOMParser().parseFromString(html, "text/html");
          ids.forEach(function (id) {
            var here = document.getElementById(id), there = doc.getElementById(id);
            if (here && there) here.replaceChildren.apply(here, Array.prototype.map.call(there.childNodes, function (n) { return document.importNode(n, true); }));
          });
          history.replaceState(null, "", url);
        })
        .catch(function () {});
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = input.value.trim();
        show(form.action + (q ? "?q=" + encodeURIComponent(q) : ""));
      }, 200);
    });
  });
})();

// The filter panel (form.filterform): the address it opens names only the
// filters chosen, as the page's own links write it. Without the script the
// form sends every field, empty ones too, and the page reads that the same.
(function () {
  "use strict";
  if (!window.URLSearchParams || !window.FormData) return;
  document.querySelectorAll("form.filterform").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      var params = new URLSearchParams();
      new FormData(form).forEach(function (v, k) {
        if (typeof v !== "string" || (v = v.trim()) === "") return;
        params.append(k, v);
      });
      e.preventDefault();
      var query = params.toString();
      location.assign(form.getAttribute("action") + (query ? "?" + query : ""));
    });
  });
})();

// The taste: the perfumes a visitor likes and dislikes, kept in this
// browser only (localStorage, never a cookie; nothing is sent until the
// visitor opens the taste page, whose address then holds it).
//
// "Like this" (an <a data-like="SLUG"> to /taste?liked=SLUG, which works
// without JavaScript) becomes a toggle button that adds the perfume to the
// kept taste or takes it out, with a link to the taste page beside it.
// The taste page (<div data-taste data-liked="…" data-disliked="…">)
// keeps the taste its address shows; opened bare (/taste, no query), it
// opens the address of the kept taste instead.
(function () {
  "use strict";
  var KEY = "fragrance.taste", MOST = 10;
  function load() {
    try {
      var t = JSON.parse(localStorage.getItem(KEY) || "{}");
      return { liked: Array.isArray(t.liked) ? t.liked.slice(0, MOST) : [], disliked: Array.isArray(t.disliked) ? t.disliked.slice(0, MOST) : [] };
    } catch (e) {
      return { liked: [], disliked: [] };
    }
  }
  function save(t) {
    try { localStorage.setItem(KEY, JSON.stringify(t)); } catch (e) { /* storage off: the links still work */ }
  }
  function address(t) {
    var p = new URLSearchParams();
    t.liked.forEach(function (s) { p.append("liked", s); });
    t.disliked.forEach(function (s) { p.append("disliked", s); });
    var q = p.toString();
    return "/taste" + (q ? "?" + q : "");
  }
  var box = document.querySelector("[data-taste]");
  if (box) {
    var split = function (v) { return (v || "").split(" ").filter(Boolean); };
    if (location.search === "") {
      var kept = load();
      if (kept.liked.length || kept.disliked.length) { location.replace(address(kept)); return; }
    } else {
      save({ liked: split(box.getAttribute("data-liked")), disliked: split(box.getAttribute("data-disliked")) });
    }
  }
  document.querySelectorAll("a[data-like]").forEach(function (link) {
    var slug = link.getAttribute("data-like");
    var button = document.createElement("button");
    button.type = "button";
    button.className = link.className;
    var open = document.createElement("a");
    open.className = "taste-link";
    function draw() {
      var t = load(), on = t.liked.indexOf(slug) >= 0;
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.textContent = on ? "Liked" : "Like this";
      open.href = address(t);
      open.textContent = "Your taste (" + t.liked.length + ")";
      open.hidden = t.liked.length === 0;
    }
    button.addEventListener("click", function () {
      var t = load(), i = t.liked.indexOf(slug);
      if (i >= 0) {
        t.liked.splice(i, 1);
      } else {
        t.liked.push(slug);
        t.liked = t.liked.slice(-MOST);
        t.disliked = t.disliked.filter(function (s) { return s !== slug; });
      }
      save(t);
      draw();
    });
    draw();
    link.replaceWith(button);
    button.after(" ", open);
  });
})();
