{% raw %}
/* Page signals (docs/task-pages.md, "Page signals"), said openly on the page: for each item,
   how long it was on screen with the page visible, how long and how often the page was
   hidden, how often the window lost focus, paste events, whether the answer came by pointer,
   keyboard, both or neither, and whether it was given while the page was hidden. Never what
   is typed, nothing about the person. Posted as signal-<i> beside each answer. */
(function () {
  "use strict";
  var task = window.harnessTask;
  if (!task || task.config.preview) { return; }
  var cards = task.cards;
  var form = document.getElementById("task-form");
  var sig = cards.map(function () {
    return { visible: 0, hidden: 0, hides: 0, blurs: 0, pastes: 0,
             pointer: false, keyboard: false, answeredHidden: false };
  });
  var open = -1, since = Date.now(), hiddenAt = null, hiddenOn = -1;

  function current() {
    if (form.hidden) { return -1; }
    for (var i = 0; i < cards.length; i++) { if (!cards[i].hidden) { return i; } }
    return -1;
  }
  function pageHidden() { return document.visibilityState === "hidden"; }
  function settle() {  /* count the time the open item was on screen, up to now */
    var now = Date.now();
    if (open >= 0 && !pageHidden()) { sig[open].visible += now - since; }
    since = now;
  }
  function follow() { settle(); open = current(); }
  function cardOf(target) {
    var card = target && target.closest ? target.closest(".card") : null;
    return card ? cards.indexOf(card) : -1;
  }

  new MutationObserver(follow).observe(form, { attributes: true, attributeFilter: ["hidden"], subtree: true });
  document.addEventListener("visibilitychange", function () {
    if (pageHidden()) {
      settle();
      hiddenAt = Date.now(); hiddenOn = open;
      if (open >= 0) { sig[open].hides += 1; }
    } else {
      if (hiddenOn >= 0 && hiddenAt !== null) { sig[hiddenOn].hidden += Date.now() - hiddenAt; }
      hiddenAt = null; since = Date.now();
    }
  });
  window.addEventListener("blur", function () { if (open >= 0) { sig[open].blurs += 1; } });
  form.addEventListener("paste", function (event) {
    var i = cardOf(event.target); if (i >= 0) { sig[i].pastes += 1; }
  }, true);
  form.addEventListener("pointerdown", function (event) {
    var i = cardOf(event.target); if (i >= 0) { sig[i].pointer = true; }
  }, true);
  form.addEventListener("keydown", function (event) {
    var i = cardOf(event.target); if (i >= 0) { sig[i].keyboard = true; }
  }, true);
  ["input", "change"].forEach(function (kind) {
    form.addEventListener(kind, function (event) {
      var i = cardOf(event.target); if (i >= 0 && pageHidden()) { sig[i].answeredHidden = true; }
    }, true);
  });

  function inputKind(s) {
    if (s.pointer && s.keyboard) { return "both"; }
    return s.pointer ? "pointer" : (s.keyboard ? "keyboard" : "none");
  }
  window.harnessSignals = {
    signals: sig,
    fields: function () {
      settle();
      return sig.map(function (s, i) {
        var hidden = s.hidden + (hiddenOn === i && hiddenAt !== null ? Date.now() - hiddenAt : 0);
        return ["signal-" + i, [Math.round(s.visible), Math.round(hidden), s.hides, s.blurs,
          s.pastes, inputKind(s), s.answeredHidden ? 1 : 0].join(",")];
      });
    }
  };
  follow();
})();
{% endraw %}
