{% raw %}
/* Task page behaviour, inlined into every page: one item at a time, per-item timings, checks,
   and submission (to harness, then MTurk; or straight to MTurk for self-contained pages). */
(function () {
  "use strict";
  var PREVIEW_ID = "ASSIGNMENT_ID_NOT_AVAILABLE";
  var cfg = TASK;
  /* the page's words in its language (harness.i18n), each {name} filled in from args */
  function t(key, args) {
    return cfg.text[key].replace(/\{(\w+)\}/g, function (all, name) { return String(args[name]); });
  }
  function num(n) { return Number(n).toLocaleString(cfg.lang, { useGrouping: false }); }
  var params = new URLSearchParams(window.location.search);
  if (cfg.hosting === "mturk") {
    cfg.assignmentId = params.get("assignmentId") || "";
    cfg.workerId = params.get("workerId") || "";
    cfg.hitId = params.get("hitId") || "";
    cfg.turkSubmitTo = submitOrigin(params.get("turkSubmitTo") || "", cfg.submitOrigins);
    cfg.preview = !cfg.assignmentId || cfg.assignmentId === PREVIEW_ID;
  }

  /* turkSubmitTo as the server checks it (harness.web.security.checked_submit_to): a bare
     http(s) origin that is one of the platform's worker sites exactly; anything else ("") is
     nowhere to submit: never a javascript: URL, another host, a path, credentials */
  function submitOrigin(value, allowed) {
    if (!value || /[\u0000-\u0020\u007f\\@]/.test(value)) { return ""; }
    var url;
    try { url = new URL(value); } catch (e) { return ""; }
    if (url.protocol !== "https:" && url.protocol !== "http:") { return ""; }
    if (url.username || url.password || url.pathname !== "/" || /[?#]/.test(value)) { return ""; }
    return (allowed || []).indexOf(url.origin) >= 0 ? url.origin : "";
  }

  var form = document.getElementById("task-form");
  var nav = form.querySelector(".nav");
  var cards = Array.prototype.slice.call(form.querySelectorAll(".card"));
  if (cfg.hosting === "mturk" && cfg.order.shuffle && cfg.workerId) {
    cards = arrange(cards, clientOrder(cards.map(function (c) { return c.dataset.key; }),
      cfg.order.seed, cfg.order.study, cfg.workerId, cfg.order.minGap));
    cards.forEach(function (card) { form.insertBefore(card, nav); });
  }
  var controls = document.getElementById("answer-controls");
  cards.forEach(function (card, i) {
    var count = document.createElement("p");
    count.className = "card-count";
    count.textContent = t("item_of", { n: num(i + 1), total: num(cards.length) });
    card.insertBefore(count, card.firstChild);
    var copy = controls.content.cloneNode(true);
    copy.querySelectorAll("input[name]").forEach(function (input) { input.name = input.name + "-" + i; });
    card.appendChild(copy);
    var error = document.createElement("p");
    error.className = "card-error";
    error.setAttribute("role", "alert");
    error.hidden = true;
    card.appendChild(error);
    card.setAttribute("aria-label", t("item", { n: num(i + 1) }));
  });
  var n = cards.length;
  var state = cards.map(function () {
    return { value: null, skipped: false, shown: null, answered: null, gate: null, typed: "" };
  });
  var current = 0;
  var reminderDone = !cfg.halfwayReminder || n < 4;
  var halfway = Math.floor(n / 2);
  var sending = false;
  var started = false;
  var consentedAt = null;  /* when the participant agreed to the consent text (a spec with one) */

  var el = function (id) { return document.getElementById(id); };
  var backButton = el("back"), nextButton = el("next"), submitButton = el("submit");
  var guidelines = el("guidelines"), reminder = el("halfway"), messages = el("messages");

  if (cfg.preview) {
    el("preview-banner").hidden = false;
    el("preview-note").hidden = false;
    form.querySelectorAll(".card input").forEach(function (input) { input.disabled = true; });
  }

  /* ---- order for self-contained pages: FNV-1a seed, mulberry32, Fisher-Yates; a repeated
     item's second showing at least minGap positions from the first (harness.render.client_order
     computes the same order in Python). */
  function fnv1a(text) {
    var bytes = new TextEncoder().encode(text), h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) { h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0; }
    return h >>> 0;
  }
  function mulberry32(a) {
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function clientOrder(showings, seed, study, worker, minGap) {
    var rng = mulberry32(fnv1a(seed + "\u001f" + study + "\u001f" + worker));
    var seen = {}, order = [], repeated = [];
    showings.forEach(function (key) {
      if (seen[key]) { repeated.push(key); } else { seen[key] = true; order.push(key); }
    });
    for (var i = order.length - 1; i > 0; i--) {
      var j = Math.floor(rng() * (i + 1)), tmp = order[i];
      order[i] = order[j]; order[j] = tmp;
    }
    repeated.forEach(function (key) {
      var first = order.indexOf(key), allowed = [];
      for (var q = 0; q <= order.length; q++) {
        var gap = q > first ? q - first - 1 : first - q;
        if (gap >= minGap) { allowed.push(q); }
      }
      if (allowed.length) {
        order.splice(allowed[Math.floor(rng() * allowed.length)], 0, key);
      } else {
        order.splice(first, 1);
        order.unshift(key);
        order.push(key);
      }
    });
    return order;
  }
  function arrange(cardList, order) {
    var pool = {};
    cardList.forEach(function (card) { (pool[card.dataset.key] = pool[card.dataset.key] || []).push(card); });
    return order.map(function (key) { return pool[key].shift(); });
  }

  /* ---- answers */
  function parseNumber(text) {
    var t = text.trim().replace(",", ".");
    if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(t)) { return null; }
    return parseFloat(t);
  }
  function onScale(v) {
    var s = cfg.scale;
    if (s.options.length) { return s.options.some(function (o) { return Math.abs(o - v) < 1e-9; }); }
    if (v < s.min - 1e-9 || v > s.max + 1e-9) { return false; }
    if (s.fractional) { return Math.abs(Number(v.toFixed(s.decimals)) - v) < 1e-9; }
    var steps = (v - s.min) / s.step;
    return Math.abs(steps - Math.round(steps)) < 1e-6;
  }
  function answered(i) { return state[i].skipped || state[i].value !== null; }
  function problem(i) {
    var s = state[i];
    if (answered(i)) { return ""; }
    if (cfg.gate && s.gate === null) { return t("answer_gate"); }
    if (s.typed.trim() !== "") { return t("not_allowed", { typed: s.typed.trim() }) + " " + cfg.scale.hint; }
    return t("answer_item");
  }
  function touch(i) {
    state[i].answered = Date.now();
    cards[i].querySelector(".card-error").hidden = true;
    progress();
    save();
  }

  /* ---- a reload keeps the answers: saved in this browser per assignment until submitted */
  var storeKey = "harness:" + cfg.hitKey + ":" + cfg.assignmentId;
  var keys = cards.map(function (c) { return c.dataset.key; }).join("\u001f");
  function save() {
    if (cfg.preview) { return; }
    try {
      localStorage.setItem(storeKey, JSON.stringify({ keys: keys, state: state, reminderDone: reminderDone, consentedAt: consentedAt }));
    } catch (e) { /* storage unavailable (private mode, sandboxed frame): nothing to keep */ }
  }
  function forget() {
    try { localStorage.removeItem(storeKey); } catch (e) { /* as above */ }
  }
  function restore() {
    var saved = null;
    try { saved = JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (e) { saved = null; }
    if (cfg.preview || !saved || saved.keys !== keys || saved.state.length !== n) { return false; }
    reminderDone = reminderDone || saved.reminderDone;
    if (saved.consentedAt) { agreed(saved.consentedAt); }
    saved.state.forEach(function (s, i) {
      Object.assign(state[i], s);  // the same objects: the controls' handlers hold them
      var card = cards[i];
      card.querySelectorAll(".gate-input").forEach(function (x) { x.checked = x.value === s.gate; });
      var afterGate = card.querySelector(".after-gate");
      if (afterGate) { afterGate.hidden = s.gate !== "yes"; }
      var skip = card.querySelector(".skip-input");
      if (skip) { skip.checked = s.skipped && s.gate !== "no"; }
      card.querySelectorAll(".answer-input").forEach(function (x) {
        x.checked = s.value !== null && Math.abs(parseFloat(x.value) - s.value) < 1e-9;
      });
      var text = card.querySelector(".value-input");
      if (text) { text.value = s.typed; }
      var slider = card.querySelector(".slider");
      if (slider && s.value !== null) { sliderShow(slider, s.value); }
    });
    return state.some(function (s) { return s.shown !== null; });
  }
  function wire(card, i) {
    var s = state[i];
    var text = card.querySelector(".value-input");
    var slider = card.querySelector(".slider");
    var skip = card.querySelector(".skip-input");
    var afterGate = card.querySelector(".after-gate");
    card.querySelectorAll(".answer-input").forEach(function (input) {
      input.addEventListener("change", function () {
        if (!input.checked) { return; }
        s.value = parseFloat(input.value);
        if (skip && skip.checked) { skip.checked = false; s.skipped = false; }
        touch(i);
      });
    });
    if (text) {
      text.addEventListener("input", function () {
        s.typed = text.value;
        var v = parseNumber(text.value);
        var ok = v !== null && onScale(v);
        s.value = ok ? v : null;
        text.classList.toggle("invalid", text.value.trim() !== "" && !ok);
        if (slider) { if (ok) { sliderShow(slider, v); } else { sliderClear(slider); } }
        if (ok) {
          if (skip && skip.checked) { skip.checked = false; s.skipped = false; }
          touch(i);
        } else { progress(); }
      });
      text.addEventListener("keydown", function (event) {
        if (event.key === "Enter") { event.preventDefault(); (current === n - 1 ? submit : next)(); }
      });
    }
    if (slider) {
      var fromSlider = function () {
        var v = parseFloat(slider.value);
        sliderShow(slider, v);
        s.value = v;
        s.typed = shown(v);
        if (text) { text.value = s.typed; text.classList.remove("invalid"); }
        if (skip && skip.checked) { skip.checked = false; s.skipped = false; }
        touch(i);
      };
      slider.addEventListener("input", fromSlider);
      /* a click or key on an unanswered slider that leaves its value unchanged (at the minimum,
         where it rests unseen) fires no input event: it still sets the answer */
      slider.addEventListener("pointerup", function () {
        if (slider.classList.contains("untouched") && !cfg.preview) { fromSlider(); }
      });
      slider.addEventListener("keyup", function (event) {
        if (SLIDER_KEYS.indexOf(event.key) >= 0 && slider.classList.contains("untouched") && !cfg.preview) { fromSlider(); }
      });
    }
    if (skip) {
      skip.addEventListener("change", function () {
        s.skipped = skip.checked;
        if (skip.checked) {
          s.value = null; s.typed = "";
          card.querySelectorAll(".answer-input").forEach(function (input) { input.checked = false; });
          if (text) { text.value = ""; text.classList.remove("invalid"); }
          if (slider) { sliderClear(slider); }
        }
        touch(i);
      });
    }
    card.querySelectorAll(".gate-input").forEach(function (input) {
      input.addEventListener("change", function () {
        if (!input.checked) { return; }
        s.gate = input.value;
        if (input.value === "no") {
          s.skipped = true; s.value = null;
          card.querySelectorAll(".answer-input").forEach(function (x) { x.checked = false; });
          if (afterGate) { afterGate.hidden = true; }
        } else {
          s.skipped = skip ? skip.checked : false;
          if (afterGate) { afterGate.hidden = false; }
        }
        touch(i);
      });
    });
  }
  var SLIDER_KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];
  function sliderShow(slider, v) {
    slider.value = String(v);
    slider.classList.remove("untouched");
    slider.setAttribute("aria-valuetext", sliderWords(Number(v)));
  }
  function sliderWords(v) {  /* the value with the scale's words around it: "7, between a and b" */
    var below = null, above = null;
    cfg.scale.anchors.forEach(function (a) {
      if (a[0] <= v && (below === null || a[0] > below[0])) { below = a; }
      if (a[0] >= v && (above === null || a[0] < above[0])) { above = a; }
    });
    var said = shown(v);
    if (below && below[0] === v) { return t("at", { value: said, label: below[1] }); }
    if (below && above) { return t("between", { value: said, low: below[1], high: above[1] }); }
    if (below) { return t("above", { value: said, low: below[1] }); }
    if (above) { return t("below", { value: said, high: above[1] }); }
    return t("on_scale", { value: said, min: shown(cfg.scale.min), max: shown(cfg.scale.max) });
  }
  function sliderClear(slider) {  /* back to unanswered: no thumb, no value announced */
    slider.value = slider.min;
    slider.classList.add("untouched");
    slider.setAttribute("aria-valuetext", t("no_answer"));
  }
  function format(v) {
    var d = cfg.scale.fractional ? cfg.scale.decimals : 6;
    return String(Number(v.toFixed(d)));
  }
  function shown(v) {  /* a value as the page's language writes it (7,5 in German) */
    return format(v).replace(".", cfg.decimal);
  }
  cards.forEach(wire);

  /* ---- navigation */
  function progress() {
    var done = state.filter(function (s, i) { return answered(i); }).length;
    var box = el("progress-text");
    box.textContent = started ? t("item_of", { n: num(current + 1), total: num(n) }) : t("items", { n: num(n) });
    if (started) {
      var extra = document.createElement("span");
      extra.className = "progress-answered";
      extra.textContent = " \u00b7 " + t("answered", { n: num(done) });
      box.appendChild(extra);
    }
    el("progress-fill").style.width = (100 * done / Math.max(n, 1)) + "%";
  }
  function show(i) {
    current = i;
    cards.forEach(function (card, k) { card.hidden = k !== i; });
    if (state[i].shown === null && !cfg.preview) { state[i].shown = Date.now(); save(); }
    backButton.disabled = i === 0;
    var last = i === n - 1;
    nextButton.hidden = last;
    submitButton.hidden = !last || cfg.preview;
    progress();
    var text = cards[i].querySelector(".value-input");
    if (text && !cfg.preview && window.matchMedia("(pointer: fine)").matches) { text.focus({ preventScroll: true }); }
    else { cards[i].focus({ preventScroll: true }); }  /* the next Tab goes to this item's answers */
  }
  function complain(i, message) {
    var box = cards[i].querySelector(".card-error");
    box.textContent = message;
    box.hidden = false;
  }
  function next() {
    if (!cfg.preview && !answered(current)) { complain(current, problem(current)); return; }
    if (current >= n - 1) { return; }
    if (!reminderDone && !cfg.preview && current + 1 === halfway) {
      reminderDone = true;
      cards[current].hidden = true;
      reminder.hidden = false;
      nav.hidden = true;
      guidelines.open = true;
      window.scrollTo(0, 0);
      el("halfway-continue").focus({ preventScroll: true });
      return;
    }
    show(current + 1);
    cards[current].scrollIntoView({ block: "nearest" });
  }
  backButton.addEventListener("click", function () { if (current > 0) { show(current - 1); } });
  nextButton.addEventListener("click", next);
  el("halfway-continue").addEventListener("click", function () {
    reminder.hidden = true;
    nav.hidden = false;
    show(halfway);
  });
  function begin(at) {
    started = true;
    el("start").hidden = true;
    el("hide-guidelines").hidden = false;
    guidelines.open = false;
    form.hidden = false;
    show(at);
    window.scrollTo(0, 0);
  }
  el("start").addEventListener("click", function () { begin(0); });

  /* ---- consent (a spec with one): agreed before the instructions and the first item */
  function agreed(at) {
    consentedAt = at;
    el("consent").hidden = true;
    guidelines.hidden = false;
  }
  if (cfg.consent) {
    el("consent-agree").addEventListener("click", function () {
      agreed(Date.now());
      save();
      el("start").focus({ preventScroll: true });
    });
    el("consent-decline").addEventListener("click", function () {
      el("consent").hidden = true;
      el("withdraw-area").hidden = true;
      el("declined").hidden = false;
      el("declined").focus({ preventScroll: true });
    });
  }
  el("hide-guidelines").addEventListener("click", function () {
    guidelines.open = false;
    cards[current].scrollIntoView({ block: "nearest" });
  });

  /* ---- submission */
  function fields() {
    var out = [];
    cards.forEach(function (card, p) {
      var s = state[p];
      out.push(["item-" + p, card.dataset.key]);
      out.push(["value-" + p, s.skipped || s.value === null ? "" : format(s.value)]);
      out.push(["skip-" + p, s.skipped ? "1" : ""]);
      out.push(["shown-" + p, s.shown === null ? "" : String(s.shown)]);
      out.push(["answered-" + p, s.answered === null ? "" : String(s.answered)]);
    });
    return out;
  }
  function showMessages(list) {
    messages.innerHTML = "";
    var intro = document.createElement("p");
    intro.textContent = t("not_submitted");
    var ul = document.createElement("ul");
    list.forEach(function (m) { var li = document.createElement("li"); li.textContent = m; ul.appendChild(li); });
    messages.appendChild(intro);
    messages.appendChild(ul);
    messages.hidden = false;
  }
  /* the done banner; ``then`` (where the participant goes next) runs at once, or, with a
     debrief to read, when they press Continue */
  function finish(text, then) {
    el("done-text").textContent = text;
    el("done").hidden = false;
    form.hidden = true;
    guidelines.open = false;
    window.scrollTo(0, 0);
    el("done").focus({ preventScroll: true });
    if (!then) { return; }
    var onward = el("continue");
    if (!onward) { then(); return; }
    onward.hidden = false;
    onward.addEventListener("click", function () { onward.disabled = true; then(); });
  }
  function postToTurk(pairs) {
    var target = document.createElement("form");
    target.method = "POST";
    target.action = cfg.turkSubmitTo.replace(/\/+$/, "") + "/mturk/externalSubmit";
    [["assignmentId", cfg.assignmentId]].concat(pairs).forEach(function (pair) {
      var input = document.createElement("input");
      input.type = "hidden"; input.name = pair[0]; input.value = pair[1];
      target.appendChild(input);
    });
    document.body.appendChild(target);
    target.submit();
  }
  function busy(on) {
    sending = on;
    submitButton.disabled = on; backButton.disabled = on || current === 0;
    submitButton.textContent = on ? t("sending") : t("submit");
  }
  function submit() {
    if (cfg.preview || sending) { return; }
    messages.hidden = true;
    for (var i = 0; i < n; i++) {
      if (!answered(i)) { show(i); complain(i, problem(i)); return; }
    }
    var pairs = fields().concat(window.harnessSignals ? window.harnessSignals.fields() : []);
    if (cfg.consent) { pairs.push(["consent", cfg.consent], ["consentedAt", String(consentedAt || "")]); }
    if (cfg.hosting === "mturk") {
      if (!cfg.turkSubmitTo) { showMessages([t("outside_mturk")]); return; }
      busy(true);
      forget();
      if (el("continue")) {  /* the debrief first: the answers go to MTurk on Continue */
        el("continue-hosted").hidden = false;
        finish("", function () { postToTurk(pairs); });
        return;
      }
      postToTurk(pairs);
      return;
    }
    busy(true);
    var body = new URLSearchParams();
    body.append("assignmentId", cfg.assignmentId);
    body.append("workerId", cfg.workerId);
    body.append("hitId", cfg.hitId);
    body.append("pageToken", cfg.pageToken);
    pairs.forEach(function (pair) { body.append(pair[0], pair[1]); });
    fetch(cfg.answersUrl, { method: "POST", body: body, headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; },
          function () { return { ok: false, data: { errors: [t("server_answered", { status: num(response.status) })] } }; });
      })
      .then(function (result) {
        if (!result.ok) { busy(false); showMessages(result.data.errors || [t("try_again")]); return; }
        forget();
        if (result.data.next) {  /* a platform with places: its completion page (with the code) */
          finish(result.data.message, function () { window.location.assign(result.data.next); });
          return;
        }
        if (cfg.turkSubmitTo) {
          finish(result.data.message + " " + t("completing"), function () { postToTurk(pairs); });
        } else {
          finish(result.data.message + " " + t("close"));
        }
      }, function () {
        busy(false);
        showMessages([t("unreachable")]);
      });
  }
  submitButton.addEventListener("click", submit);

  /* ---- withdrawal: confirmed first, then told to the server (a page MTurk hosts has no
     server to tell: the worker returns the HIT on MTurk) */
  var withdrawArea = el("withdraw-area"), confirmBox = el("withdraw-confirm");
  var withdrawYes = el("withdraw-yes"), withdrawError = el("withdraw-error");
  if (cfg.preview) { withdrawArea.hidden = true; }
  el("withdraw").addEventListener("click", function () {
    confirmBox.hidden = false;
    withdrawYes.focus();
  });
  el("withdraw-no").addEventListener("click", function () {
    confirmBox.hidden = true;
    el("withdraw").focus();
  });
  function withdrawn(text) {
    forget();
    ["consent", "guidelines", "halfway", "done", "preview-banner"].forEach(function (id) {
      if (el(id)) { el(id).hidden = true; }
    });
    form.hidden = true;
    withdrawArea.hidden = true;
    el("withdrawn-text").textContent = text;
    el("withdrawn").hidden = false;
    window.scrollTo(0, 0);
    el("withdrawn").focus({ preventScroll: true });
  }
  function withdrawFailed(list) {
    withdrawYes.disabled = false;
    withdrawError.textContent = list.join(" ");
    withdrawError.hidden = false;
  }
  withdrawYes.addEventListener("click", function () {
    if (!cfg.withdrawUrl) {  /* a page MTurk hosts: its own words, nothing to send */
      withdrawn(el("withdrawn-hosted").textContent);
      return;
    }
    withdrawYes.disabled = true;
    var body = new URLSearchParams();
    body.append("assignmentId", cfg.assignmentId);
    body.append("workerId", cfg.workerId);
    body.append("pageToken", cfg.pageToken);
    fetch(cfg.withdrawUrl, { method: "POST", body: body, headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        if (data.ok) { withdrawn(data.message); } else { withdrawFailed(data.errors || [t("try_again")]); }
      }, function () { withdrawFailed([t("withdraw_unreachable")]); });
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); });

  if (restore()) {
    var next0 = state.findIndex(function (s, i) { return !answered(i); });
    begin(next0 < 0 ? n - 1 : next0);
  } else {
    progress();
  }
  window.harnessTask = { state: state, cards: cards, config: cfg };
})();
{% endraw %}
